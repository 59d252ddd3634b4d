/** The store a command uses: `--store` / `--store-prefix`, else BERRY_STORE / BERRY_STORE_PREFIX, else files (docs/store.md). */
import type { StoreChoice } from '../../store/index.js';
import type { CliArgs } from '../usage.js';

export function storeChoice(args: Pick<CliArgs, 'values'>, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const given = (name: 'store' | 'store-prefix', variable: string): string | undefined => {
    const value = args.values[name];
    return typeof value === 'string' ? value : env[variable] || undefined;
  };
  const store = given('store', 'BERRY_STORE');
  const storePrefix = given('store-prefix', 'BERRY_STORE_PREFIX');
  return { ...(store === undefined ? {} : { store }), ...(storePrefix === undefined ? {} : { storePrefix }) };
}
