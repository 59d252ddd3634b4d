/**
 * The `sandbox` block resolved: `${VAR}` expanded in the bind paths, paths made absolute on the
 * target machine, binds ordered so a nested mount follows the one it sits inside, and the
 * server's private home named.
 */
import * as posix from 'node:path/posix';
import { SANDBOX_HOMES_DIR, type SandboxBind, type SandboxPolicy } from '../remote/machine/sandbox/sandbox-policy.js';
import { resolveMachinePath } from './config-path.js';
import { expandVars, type ExpandContext } from './expand-env.js';
import { indexPath, memberPath } from './json/json-path.js';
import type { Problem } from './problems.js';
import type { ResolvedStdioConfig, ServerSlot } from './types.js';
import type { ValidSandboxBlock } from './validate/validate-sandbox.js';

export interface SandboxContext {
  /** JSON path of the `sandbox` block. */
  readonly jsonPath: string;
  readonly server: string;
  /** The entry's resolved working directory: relative bind sources start here. */
  readonly cwd: string;
  readonly home: string | undefined;
}

export function resolveSandbox(block: ValidSandboxBlock, context: SandboxContext, expand: ExpandContext, problems: Problem[]): SandboxPolicy | undefined {
  if (block.mode === 'off') return undefined;
  const binds: SandboxBind[] = [];
  for (const [key, writable] of [
    ['roBinds', false],
    ['rwBinds', true],
  ] as const) {
    block[key].forEach((written, index) => {
      const path = indexPath(memberPath(context.jsonPath, key), index);
      const bind = parseBind(expandVars(written, path, expand), writable, context);
      if (typeof bind === 'string') problems.push({ jsonPath: path, text: `${path} ${bind}` });
      else binds.push(bind);
    });
  }
  if (context.home === undefined || !posix.isAbsolute(context.home)) {
    problems.push({ jsonPath: context.jsonPath, text: `${context.jsonPath} needs the home directory of the target machine, which is not an absolute path` });
    return undefined;
  }
  return Object.freeze<SandboxPolicy>({
    mode: block.mode,
    network: block.network,
    workspace: block.workspace,
    // Stable: binds at one depth keep the order written.
    binds: Object.freeze(binds.sort((a, b) => depth(a.target) - depth(b.target))),
    envPass: Object.freeze([...block.envPass]),
    home: posix.join(context.home, SANDBOX_HOMES_DIR, homeDirName(context.server)),
  });
}

/** `"HOST"` or `"HOST:SANDBOX"` (split at the first colon), or what is wrong with it. */
function parseBind(text: string, writable: boolean, context: SandboxContext): SandboxBind | string {
  const colon = text.indexOf(':');
  const host = colon === -1 ? text : text.slice(0, colon);
  const inside = colon === -1 ? undefined : text.slice(colon + 1);
  if (host === '' || inside === '' || text.includes('\0')) return 'must be "HOST" or "HOST:SANDBOX" after substituting variables (non-empty paths, no NUL)';
  let source: string;
  try {
    source = resolveMachinePath(host, context.cwd, context.home);
  } catch {
    return 'starts with ~ but the home directory of the target machine is unknown';
  }
  if (inside !== undefined && !posix.isAbsolute(inside))
    return `has a sandbox path ${JSON.stringify(inside)} that is not absolute; write "HOST:/absolute/path"`;
  const target = inside === undefined ? source : posix.normalize(inside);
  if (target === '/') return 'cannot be mounted over the sandbox root "/"; choose a directory inside it';
  return { source, target, writable };
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

/** A directory name for any server name: no `/`, never `.` or `..`. */
function homeDirName(name: string): string {
  const encoded = encodeURIComponent(name);
  return /^\.+$/.test(encoded) ? encoded.replace(/\./g, '%2E') : encoded;
}

/**
 * Gives each confined entry the rw mounts of the other confined entries of its config: places
 * another confined server can write, where a symlink must not be trusted (sandbox-mounts.ts).
 */
export function shareWritablePlaces(servers: readonly ServerSlot[]): ServerSlot[] {
  const placesOf = (config: ResolvedStdioConfig): string[] => {
    const policy = config.sandbox;
    if (!policy) return [];
    return [...(policy.workspace === 'rw' ? [config.cwd] : []), ...policy.binds.filter((bind) => bind.writable).map((bind) => bind.source)];
  };
  const confined = servers.flatMap((slot) => (slot.status === 'ok' && slot.config.kind === 'stdio' && slot.config.sandbox ? [slot.config] : []));
  if (confined.length < 2) return [...servers];
  return servers.map((slot) => {
    if (slot.status !== 'ok' || slot.config.kind !== 'stdio' || !slot.config.sandbox) return slot;
    const own = slot.config;
    const others = [...new Set(confined.filter((config) => config !== own).flatMap(placesOf))];
    if (others.length === 0) return slot;
    const sandbox = Object.freeze({ ...own.sandbox!, othersWritable: Object.freeze(others) });
    return { ...slot, config: Object.freeze({ ...own, sandbox }) };
  });
}
