import type { ServerStatus } from '../../bindings/index.js';
import { configuredNames, replaceConfigText, withServer } from '../../config/index.js';
import { UsageError } from '../usage.js';
import { json } from '../output/blocks.js';
import { CandidateMachine } from '../candidate-machine.js';
import { configFileOf } from '../config-file.js';
import type { CommandContext, CommandHandler } from '../context.js';
import { createCliMachine } from '../machine.js';
import { renderList } from '../output/render.js';
import { secretLiteralWarnings } from '../secret-literals.js';
import { terminalSafe } from '../output/terminal-safe.js';
import { newEntry } from '../server-entry.js';
import { linkNote } from '../output/wording.js';

/**
 * `berry-mcp add NAME (URL | -- COMMAND …)`: builds the entry, checks that the server starts and
 * lists its tools exactly as `list NAME` would see it saved, and only then writes the file.
 */
export const addCommand: CommandHandler = async (ctx) => {
  const { args, io, signal } = ctx;
  const name = args.positionals[0]!;
  const built = newEntry(args, io.cwd);
  const entry = built.entry as { env?: Record<string, string>; headers?: Record<string, string>; url?: string; args?: string[] };
  for (const warning of secretLiteralWarnings({ server: name, ...entry })) io.stderr.write(`berry-mcp: warning: ${terminalSafe(warning)}\n`);

  const machine = new CandidateMachine(await createCliMachine(args));
  let hostOwnsMachine = false;
  try {
    const { path, text } = await configFileOf(args, io, machine, signal);
    const occurrences = configuredNames(text, path).filter((n) => n === name).length;
    if (occurrences > 1) throw new UsageError(`server "${name}" is defined more than once in ${path}; keep one by hand first`, 'add');
    if (occurrences === 1 && args.values.replace !== true) {
      throw new UsageError(`server "${name}" is already in ${path}; pass --replace to overwrite it, or choose another name`, 'add');
    }
    const next = withServer(text, path, name, built.entry);
    let checked: ServerStatus | undefined;
    if (args.values['no-check'] !== true) {
      hostOwnsMachine = true;
      checked = await check(ctx, machine, path, withServer(text, path, name, built.enabledEntry), name);
      if (checked?.status !== 'connected') {
        const result = { configPath: path, servers: checked === undefined ? [] : [checked] };
        if (args.json) io.stdout.write(json({ added: false, configPath: path, check: checked ?? null }));
        // A server that needs sign-in can only be signed in to once it is saved.
        const remedy = checked?.status === 'auth_required' ? `save it with --no-check, then run berry-mcp auth ${name}` : '--no-check saves it unchecked';
        io.stderr.write(
          `${renderList(result)}\n${terminalSafe(`berry-mcp: "${name}" was not added: it did not pass the check, so ${path} is unchanged (${remedy}).`)}\n`,
        );
        return 2;
      }
    }
    const written = await replaceConfigText(machine, path, text, next, signal);
    if (args.json) io.stdout.write(json({ added: true, configPath: path, check: checked ?? null }));
    else
      io.stdout.write(
        `${terminalSafe(`Added "${name}" (${built.kind}) to ${path}${linkNote(path, written)}${checked?.status === 'connected' ? `: connected, ${checked.tools.length} tools` : ', not checked'}.`)}\n`,
      );
    return 0;
  } finally {
    // main closes the host, and with it the machine (check closes it if no host came to be).
    if (!hostOwnsMachine) await machine.close();
  }
};

/** Lists the one server from the candidate config, through the host `list` uses; the file stays as it is. */
async function check(ctx: CommandContext, machine: CandidateMachine, path: string, candidate: string, name: string): Promise<ServerStatus | undefined> {
  machine.propose({ path, text: candidate });
  try {
    const host = await ctx.host({ machine, cwd: ctx.io.cwd, configPath: path }).catch(async (error: unknown) => {
      await machine.close();
      throw error;
    });
    const result = await host.list({ server: name, refresh: true }, { signal: ctx.signal });
    return result.servers.find((s) => s.name === name);
  } finally {
    machine.propose(undefined);
  }
}
