import { configuredNames, replaceConfigText, withoutServer } from '../../config/index.js';
import { unknownServer } from '../../bindings/operations/resolve-entry.js';
import { json } from '../output/blocks.js';
import { configFileOf } from '../config-file.js';
import type { CommandHandler } from '../context.js';
import { createCliMachine } from '../machine.js';
import { terminalSafe } from '../output/terminal-safe.js';
import { linkNote, serverHint } from '../output/wording.js';

/** `berry-mcp remove NAME`: cuts the entry out of the file; every other byte stays. */
export const removeCommand: CommandHandler = async ({ args, io, signal }) => {
  const name = args.positionals[0]!;
  const machine = await createCliMachine(args);
  try {
    const { path, text } = await configFileOf(args, io, machine, signal);
    const names = configuredNames(text, path);
    if (text === undefined || !names.includes(name)) throw unknownServer(name, names, path, text !== undefined, serverHint(name, names));
    const written = await replaceConfigText(machine, path, text, withoutServer(text, path, name), signal);
    io.stdout.write(args.json ? json({ removed: name, configPath: path }) : `${terminalSafe(`Removed "${name}" from ${path}${linkNote(path, written)}.`)}\n`);
    return 0;
  } finally {
    await machine.close();
  }
};
