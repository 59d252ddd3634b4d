import { createRequire } from 'node:module';
import type IsolatedVm from 'isolated-vm';
import { BerryError } from '../common/errors.js';

const require = createRequire(import.meta.url);

export type Ivm = typeof IsolatedVm;

/** The isolated-vm build that serves one Node major. */
export interface IsolatedVmChoice {
  /** The npm alias it is installed under (package.json optionalDependencies). */
  readonly packageName: string;
  /** isolated-vm's own major. */
  readonly major: number;
  /** The Node majors it is for, as the error message says it. */
  readonly forNode: string;
}

/**
 * isolated-vm's majors follow Node's V8, and one process may load only one of them, so each Node
 * major maps to exactly one alias and nothing else is tried (a second copy of isolated-vm in the
 * same process aborts it). Tested: Node 20 → 5, 22 → 6, 24 and 26 → 7.
 */
export function isolatedVmFor(nodeMajor: number): IsolatedVmChoice {
  if (nodeMajor < 22) return { packageName: 'isolated-vm-5', major: 5, forNode: 'Node 20' };
  if (nodeMajor < 24) return { packageName: 'isolated-vm-6', major: 6, forNode: 'Node 22' };
  return { packageName: 'isolated-vm-7', major: 7, forNode: 'Node 24 and 26' };
}

const SUPPORTED = 'Node 20, 22, 24 and 26';

let loading: Promise<Ivm> | undefined;

/**
 * Loads the native isolated-vm module that matches the running Node on first use, so the rest of
 * berry-mcp works (and says why) when it is missing or built for another Node.
 */
export function loadIsolatedVm(): Promise<Ivm> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const choice = isolatedVmFor(nodeMajor);
  // require, not import(): isolated-vm is CommonJS, and import() of it first loads Node's CommonJS
  // export lexer (≈ 20 ms of a one-shot run's start-up on Node 20, measured; require ≈ 5 ms).
  loading ??= new Promise<Ivm>((resolve) => resolve(require(choice.packageName) as Ivm)).catch((cause: unknown) => {
    loading = undefined;
    throw new BerryError('SCRIPT_SETUP_FAILED', loadFailureMessage(choice, cause), { cause });
  });
  return loading;
}

/** Says which package was tried for which Node, why it failed, and the one command that fixes it. */
export function loadFailureMessage(choice: IsolatedVmChoice, cause: unknown): string {
  const what = `isolated-vm ${choice.major} (npm alias ${choice.packageName}, for ${choice.forNode})`;
  const on = `Node ${process.version} (supported: ${SUPPORTED})`;
  const notInstalled =
    ['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'].includes(String((cause as { code?: unknown } | null)?.code)) &&
    String((cause as Error).message).includes(`'${choice.packageName}'`);
  if (notInstalled) {
    return (
      `Running scripts needs ${what}, which is not installed on ${on}. It is an optional dependency: ` +
      'npm leaves it out when its install fails, when optional dependencies are omitted, or when ' +
      'node_modules was installed by another Node. Run `npm install` again with this Node (not --omit=optional).'
    );
  }
  const reason = firstLine(cause instanceof Error ? cause.message : String(cause));
  return (
    `Running scripts needs ${what}, whose native module does not load on ${on}: ${reason}. ` +
    // berry-mcp's own install script builds it; isolated-vm's may be denied (allowScripts), making `npm rebuild isolated-vm-N` a no-op.
    'Build it for this Node with `npm rebuild berry-mcp` where berry-mcp is installed, or `npm run build:isolated-vm` ' +
    'in a berry-mcp checkout (both need python3, make and g++), or reinstall node_modules with this Node.'
  );
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
