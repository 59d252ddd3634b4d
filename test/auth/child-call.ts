/**
 * A second berry-mcp process for the auth tests: connects to server `docs`, prints `ready`, waits
 * for a line on stdin, calls TOOL (default `whoami`), prints the result as one JSON line and
 * returns from its main code without calling process.exit: the process must end on its own.
 * Without --interactive it signs in from the stored tokens only; with it, a "browser" follows
 * the authorization redirects.
 *
 * With BERRY_STORE set (and BERRY_STORE_KEY), its records are in that shared store instead.
 *
 *   node dist/test/auth/child-call.js CONFIG TOKEN_DIR [TOOL] [--interactive]
 */
import { createInterface } from 'node:readline';
import { createHost } from '../../src/host.js';
import { browser } from './helpers.js';

const [configPath, tokenDir, toolArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const tool = toolArg ?? 'whoami';
const host = createHost({
  configPath: configPath!,
  tokenDir: tokenDir!,
  ...(process.env['BERRY_STORE'] ? { store: process.env['BERRY_STORE'] } : {}),
  ...(process.argv.includes('--interactive') ? { onAuthorizationUrl: browser } : {}),
});
const lines = createInterface({ input: process.stdin });
const nextLine = (): Promise<void> => new Promise((resolve) => lines.once('line', () => resolve()));
try {
  await host.list();
  process.stdout.write('ready\n');
  await nextLine();
  const result = await host.call({ server: 'docs', tool, arguments: tool === 'admin_echo' ? { text: 'x' } : {} });
  process.stdout.write(`${JSON.stringify({ ok: true, result })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ok: false, code: (error as { code?: string }).code, message: String((error as Error).message) })}\n`);
} finally {
  lines.close();
  await host.close();
}
