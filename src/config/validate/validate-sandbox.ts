/**
 * The `sandbox` block of a stdio entry, checked strictly (unknown keys and wrong types are
 * problems) but not expanded: `${VAR}` in the bind paths is resolved later with the rest of the entry.
 */
import { indexPath, isJsonObject, jsonTypeName, memberPath } from '../json/json-path.js';

export interface ValidSandboxBlock {
  readonly mode: 'off' | 'on' | 'auto';
  readonly network: boolean;
  readonly workspace: 'ro' | 'rw' | 'none';
  /** As written: `"HOST"` or `"HOST:SANDBOX"`, `${VAR}` unexpanded. */
  readonly roBinds: readonly string[];
  readonly rwBinds: readonly string[];
  readonly envPass: readonly string[];
}

const ALLOWED_KEYS = ['mode', 'network', 'workspace', 'roBinds', 'rwBinds', 'envPass'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function validateSandboxBlock(value: unknown, path: string, report: (jsonPath: string, text: string) => void): ValidSandboxBlock | undefined {
  if (!isJsonObject(value)) {
    report(path, `must be an object like {"mode": "on"} (every key optional), got ${jsonTypeName(value)}`);
    return undefined;
  }
  const out: { -readonly [K in keyof ValidSandboxBlock]: ValidSandboxBlock[K] } = {
    mode: 'off',
    network: true,
    workspace: 'ro',
    roBinds: [],
    rwBinds: [],
    envPass: [],
  };
  const got = (item: unknown): string => (typeof item === 'string' ? JSON.stringify(item.slice(0, 40)) : jsonTypeName(item));
  for (const key of Object.keys(value)) {
    const item = value[key];
    const itemPath = memberPath(path, key);
    switch (key) {
      case 'mode':
        if (item === 'off' || item === 'on' || item === 'auto') out.mode = item;
        else report(itemPath, `must be "off", "on" or "auto", got ${got(item)}`);
        break;
      case 'network':
        if (typeof item === 'boolean') out.network = item;
        else report(itemPath, `must be true (share the network) or false (none), got ${jsonTypeName(item)}`);
        break;
      case 'workspace':
        if (item === 'ro' || item === 'rw' || item === 'none') out.workspace = item;
        else report(itemPath, `must be "ro", "rw" or "none", got ${got(item)}`);
        break;
      case 'roBinds':
      case 'rwBinds':
        out[key] = strings(item, itemPath, report, 'a path "HOST" or "HOST:SANDBOX"', (text) =>
          text === '' || text.startsWith(':') || text.endsWith(':') || text.includes('\0')
            ? 'must be "HOST" or "HOST:SANDBOX" (non-empty paths, no NUL)'
            : undefined,
        );
        break;
      case 'envPass': {
        const seen = new Set<string>();
        out.envPass = strings(item, itemPath, report, 'a variable name', (name) => {
          if (!ENV_NAME.test(name)) return `must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*), got ${JSON.stringify(name.slice(0, 40))}`;
          if (seen.has(name)) return `repeats ${JSON.stringify(name)}; list each variable once`;
          seen.add(name);
          return undefined;
        });
        break;
      }
      default:
        report(itemPath, `is not a known key. Allowed keys: ${ALLOWED_KEYS.join(', ')}`);
    }
  }
  return out;
}

function strings(
  value: unknown,
  path: string,
  report: (jsonPath: string, text: string) => void,
  what: string,
  check: (text: string) => string | undefined,
): readonly string[] {
  if (!Array.isArray(value)) {
    report(path, `must be an array of strings (each ${what}), got ${jsonTypeName(value)}`);
    return [];
  }
  const out: string[] = [];
  value.forEach((item: unknown, index) => {
    const problem = typeof item === 'string' ? check(item) : `must be a string (${what}), got ${jsonTypeName(item)}`;
    if (problem === undefined) out.push(item as string);
    else report(indexPath(path, index), problem);
  });
  return Object.freeze(out);
}
