/**
 * serve's output budget per run, and how the `run` description states it in the units clients
 * count. Claude Code refuses tool output past 25,000 tokens (MAX_MCP_OUTPUT_TOKENS): with this
 * default a whole result (outputs and logs, plus the return value with a budget of its own) stays
 * near 16,000 tokens at the usual 4 characters a token.
 */
export const SERVE_OUTPUT_LIMIT_BYTES = 32 * 1024;

/** The rough characters-per-token rate clients and models estimate size with. */
const CHARACTERS_PER_TOKEN = 4;

/** `32,768 bytes (≈ characters; about 8,000 tokens)`: UTF-8 bytes, one per ASCII character. */
export function outputBudgetText(bytes: number): string {
  const tokens = bytes / CHARACTERS_PER_TOKEN;
  const about = tokens >= 1000 ? Math.round(tokens / 1000) * 1000 : Math.ceil(tokens);
  return `${bytes.toLocaleString('en-US')} bytes (≈ characters; about ${about.toLocaleString('en-US')} tokens)`;
}
