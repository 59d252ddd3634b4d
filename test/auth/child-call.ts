/**
 * A second berry-mcp process for the auth tests: connects to server `docs` (from the stored
 * tokens; no sign-in), prints `ready`, waits for a line on stdin, calls `whoami`, prints the
 * result as one JSON line and exits.
 *
 *   node dist/test/auth/child-call.js CONFIG TOKEN_DIR
 */
import { createInterface } from 'node:readline';
import { createHost } from '../../src/host.js';

const [configPath, tokenDir] = process.argv.slice(2);
const host = createHost({ configPath: configPath!, tokenDir: tokenDir! });
const lines = createInterface({ input: process.stdin });
const nextLine = (): Promise<void> => new Promise((resolve) => lines.once('line', () => resolve()));
try {
  await host.list();
  process.stdout.write('ready\n');
  await nextLine();
  const result = await host.call({ server: 'docs', tool: 'whoami' });
  process.stdout.write(`${JSON.stringify({ ok: true, result })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ ok: false, code: (error as { code?: string }).code, message: String((error as Error).message) })}\n`);
} finally {
  lines.close();
  await host.close();
}
