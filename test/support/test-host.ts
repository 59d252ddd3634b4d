// The pattern most host suites share: a temp dir, an mcp.json in it, a host on that config, and
// cleanup after the suite. `useTestHost` registers the mocha hooks itself.
import { createHost, type Host, type HostOptions } from '../../src/host.js';
import { tempDir } from './temp-dir.js';
import { writeConfig } from './write-config.js';

type Servers = Record<string, unknown>;

export interface TestHost<H> {
  /** The suite's host, made in the suite's `before` hook. */
  readonly host: H;
  /** The temp dir (the host's cwd), removed after the suite. */
  readonly dir: string;
  /** Absolute path of dir/mcp.json. */
  readonly configPath: string;
  /** One more host on the same config (`extra` merged over cwd and configPath), closed after the test. */
  open(extra?: HostOptions): H;
}

export interface UseTestHostOptions<H> {
  /** Makes the host: `createHost` unless given (e.g. `createMcpHost` for the mcp layer alone). */
  readonly create?: (options: HostOptions) => H;
  /** Options merged over `{ cwd: dir, configPath }`, or a function of the temp dir giving them. */
  readonly options?: HostOptions | ((dir: string) => HostOptions);
  /** Prefix of the temp dir's name. */
  readonly prefix?: string;
}

/**
 * Call inside `describe`: before the suite it makes a temp dir, writes `servers` (or what the
 * function of the dir returns or resolves to: it may write files there or start fixtures first) as
 * dir/mcp.json and creates the host; after the suite it closes the host and removes the dir. Hooks
 * the suite registers later run after these (mocha keeps the order), so a later `after` that
 * closes fixtures runs once the host is closed.
 */
export function useTestHost<H extends { close(): Promise<void> } = Host>(
  servers: Servers | ((dir: string) => Servers | Promise<Servers>),
  settings: UseTestHostOptions<H> = {},
): TestHost<H> {
  const create = settings.create ?? (createHost as unknown as (options: HostOptions) => H);
  let tmp: ReturnType<typeof tempDir> | undefined;
  let configPath: string | undefined;
  let host: H | undefined;
  const extras: H[] = [];
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useTestHost: ${what} is made in the suite's before hook; use it inside a hook or test`);
    return value;
  };
  before(async () => {
    tmp = tempDir(settings.prefix);
    const dir = tmp.dir;
    configPath = writeConfig(dir, typeof servers === 'function' ? await servers(dir) : servers);
    const extra = typeof settings.options === 'function' ? settings.options(dir) : settings.options;
    host = create({ cwd: dir, configPath, ...extra });
  });
  afterEach(async () => {
    await Promise.all(extras.splice(0).map((one) => one.close()));
  });
  after(async () => {
    await host?.close();
    tmp?.cleanup();
  });
  return {
    get host() {
      return ready(host, 'the host');
    },
    get dir() {
      return ready(tmp, 'the temp dir').dir;
    },
    get configPath() {
      return ready(configPath, 'the config path');
    },
    open(extra = {}) {
      const one = create({ cwd: this.dir, configPath: this.configPath, ...extra });
      extras.push(one);
      return one;
    },
  };
}
