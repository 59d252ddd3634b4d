/**
 * Section 25: the token economy (issue 35). For each reference server, what `describe` of the
 * whole server prints (as a script's text() prints it) against the raw `tools/list` a plain SDK
 * client receives, and against all its raw lists (tools, resources, templates, prompts). Sizes
 * in characters; no timing, so nothing to alternate.
 */
import { createHost, type ServerDescription } from '../src/index.js';
import { printedSize, rawLists, referenceServers } from '../test/support/reference-lists.js';
import { tempDir, writeConfig } from './fixtures.js';
import { value, type Row } from './rows.js';

const SECTION = '25 token economy';

export default async function tokenEconomy(): Promise<Row[]> {
  const { dir, remove } = tempDir('tokens');
  const servers = referenceServers(dir);
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, servers), warmIsolates: 0 });
  try {
    const rows: Row[] = [];
    for (const [name, server] of Object.entries(servers)) {
      const raw = await rawLists(server);
      const description = (await host.describe({ server: name })) as ServerDescription;
      const described = printedSize(description);
      // The server's instructions come from initialize, in no list; they are passed on whole.
      const instructions = description.instructions === undefined ? 0 : printedSize({ instructions: description.instructions }) - 4;
      rows.push(
        value(SECTION, `describe(${name}) / raw tools/list (${raw.toolsJson} chars)`, 'x', described / raw.toolsJson, {
          note: instructions > 0 ? `its instructions, ${instructions} chars, are ${(instructions / raw.toolsJson).toFixed(2)}× of it` : '',
        }),
        value(SECTION, `describe(${name}) without its instructions / raw tools/list`, 'x', (described - instructions) / raw.toolsJson, {
          target: { max: 0.5, label: '≤ 0.5×' },
        }),
        value(SECTION, `describe(${name}) / all its raw lists (${raw.allJson} chars)`, 'x', described / raw.allJson, {
          target: { max: 0.5, label: '≤ 0.5×' },
        }),
      );
    }
    return rows;
  } finally {
    await host.close();
    remove();
  }
}
