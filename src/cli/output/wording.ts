import { didYouMean } from '../args/suggest.js';

// Library option names in messages, and the flags a person typed instead.
const FLAGS: readonly (readonly [RegExp, (...groups: string[]) => string])[] = [
  [/time limit of (\d+(?:\.\d+)?) ms \(timeoutMs\)/g, (ms) => `time limit of ${Number(ms) / 1000} s (--timeout)`],
  [/\(timeoutMs\)/g, () => '(--timeout)'],
  [/\(memoryLimitMb\)/g, () => '(--memory)'],
  [/raise the limit\./g, () => 'raise it.'],
  [/pass identityFile/g, () => 'pass --identity FILE'],
  [/set acceptUnknownHostKey: true/g, () => 'pass --accept-host-key'],
  [/acceptUnknownHostKey/g, () => '--accept-host-key'],
  [/identityFile/g, () => '--identity'],
];

/** A library message as the CLI says it: the flags the person used, not option names. */
export function cliWording(message: string): string {
  let text = message;
  for (const [pattern, replace] of FLAGS) text = text.replace(pattern, (_all, ...groups: string[]) => replace(...groups));
  return text;
}

/** ` Did you mean "docs"?` for a server or tool name that does not exist. */
export function serverHint(name: string, configured: readonly string[]): string {
  return didYouMean(name, configured);
}

/** ` (a symlink: written to TARGET)` when an edit of `path` went to the file its symlinks lead to. */
export function linkNote(path: string, written: string): string {
  return written === path ? '' : ` (a symlink: written to ${written})`;
}
