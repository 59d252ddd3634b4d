/** The id of a line that parses as JSON and looks like a response (has an id, no method). */
export function responseId(line: string): string | number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || 'method' in value) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'number' || typeof id === 'string' ? id : undefined;
}
