/** Bad usage: one line, then "see `berry-mcp help COMMAND`". A leaf, so any CLI file may throw it. */
export class UsageError extends Error {
  /** The command whose help to point at (a CommandName). */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}
