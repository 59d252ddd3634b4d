/**
 * `${NAME}` substitution from the target machine's environment. No shell, no defaults, no
 * command substitution: anything else is either literal text or an error.
 */
import type { Problem } from './problems.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Shared by every field of one entry, so one entry reports all its missing variables at once. */
export interface ExpandContext {
  readonly env: Readonly<Record<string, string>>;
  /** Names referenced but not set on the machine. */
  readonly missing: Set<string>;
  /** Every value put in place of a `${NAME}`, in order (for redaction). */
  readonly substituted: string[];
  /** Unsupported `${...}` forms. */
  readonly problems: Problem[];
}

export function createExpandContext(env: Readonly<Record<string, string>>): ExpandContext {
  return { env, missing: new Set(), substituted: [], problems: [] };
}

/** True when `value` contains something that expansion would look at. */
export function hasReference(value: string): boolean {
  return value.includes('${');
}

/**
 * Replaces each `${NAME}` (NAME = `[A-Za-z_][A-Za-z0-9_]*`) in `value` with the variable's value.
 *
 * - `$${` is the escape for a literal `${`: `$${HOME}` yields the text `${HOME}`. The leftmost
 *   match wins, so `$$${X}` yields `$${X}`.
 * - A `$` not followed by `{` stays literal: a lone `$`, `$FOO`, `$(cmd)`, `$$`.
 * - Any other `${...}` (`${FOO:-x}`, `${}`, an unterminated `${`) adds a problem at `jsonPath`.
 * - A variable not set (as an own key of `env`) is added to `context.missing` and expands to ''.
 */
export function expandVars(value: string, jsonPath: string, context: ExpandContext): string {
  let dollar = value.indexOf('$');
  if (dollar === -1) return value;
  let out = '';
  let from = 0;
  for (; dollar !== -1; dollar = value.indexOf('$', from)) {
    const next = value.charCodeAt(dollar + 1);
    if (next === 0x24 && value.charCodeAt(dollar + 2) === 0x7b) {
      out += `${value.slice(from, dollar)}\${`;
      from = dollar + 3;
      continue;
    }
    if (next !== 0x7b) {
      out += value.slice(from, dollar + 1);
      from = dollar + 1;
      continue;
    }
    const close = value.indexOf('}', dollar + 2);
    const name = close === -1 ? undefined : value.slice(dollar + 2, close);
    if (name === undefined || !NAME.test(name)) {
      // The text inside the braces is not echoed: it may be a default value holding a secret.
      const what = name === undefined ? 'an unterminated "${"' : 'an unsupported "${...}" form';
      context.problems.push({
        jsonPath,
        text: `${jsonPath} contains ${what} at character ${dollar + 1}; only \${NAME} references are supported (NAME: letters, digits and _, not starting with a digit), write $\${ for a literal "\${"`,
      });
      return '';
    }
    out += value.slice(from, dollar);
    from = close + 1;
    const variable = Object.hasOwn(context.env, name) ? context.env[name] : undefined;
    if (typeof variable === 'string') {
      out += variable;
      context.substituted.push(variable);
    } else {
      context.missing.add(name);
    }
  }
  return out + value.slice(from);
}

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variable names `expandVars` would look up in `value` (the `$${` escape skipped). */
export function variableNames(value: string): string[] {
  if (!value.includes('${')) return [];
  const names: string[] = [];
  for (const match of value.matchAll(REFERENCE)) if (match[1] !== undefined) names.push(match[1]);
  return names;
}
