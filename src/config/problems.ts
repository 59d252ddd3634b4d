/**
 * Per-server problems and the one ConfigError that reports them together, so a single round of
 * edits can fix an entry.
 */
import { ConfigError } from '../common/errors.js';

export interface Problem {
  /** Where the problem is, e.g. `$.mcpServers.docs.headers.Authorization`. */
  readonly jsonPath: string;
  /** A sentence fragment starting with the path; never contains a value that may be secret. */
  readonly text: string;
}

/** A ConfigError for server `name` (`server`, `file`, and the first problem's `jsonPath` set). */
export function serverConfigError(file: string, name: string, problems: readonly Problem[]): ConfigError {
  const first = problems[0];
  const count = problems.length > 1 ? ` (${problems.length} problems)` : '';
  const list = problems.map((problem) => problem.text).join('; ');
  return new ConfigError(`Server ${JSON.stringify(name)} in ${file} is invalid${count}: ${list}. Fix the entry and retry.`, {
    file,
    server: name,
    jsonPath: first?.jsonPath ?? '$.mcpServers',
  });
}
