// A raw SDK one-shot call, as a baseline for the CLI one-shots: spawn server-everything, connect,
// call echo, print the text, close. Input: {node, everythingPath}.
import { input, rawStdio } from './lib.mjs';

const { node, everythingPath } = input();
const client = await rawStdio(node, [everythingPath]);
const result = await client.callTool({ name: 'echo', arguments: { message: 'bench' } });
process.stdout.write(`${result.content[0].text}\n`);
await client.close();
