/** `otel.captureArguments`: a call's arguments on its span, masked before (by the caller's gate) and bounded here. */

/** An attribute value is kept to this many characters: a span is no place for a large payload. */
export const MAX_ARGUMENT_CHARS = 4096;

/** The (already masked) arguments as the conventions' `gen_ai.tool.call.arguments`: JSON, cut with a marker. */
export function argumentsAttribute(masked: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(masked) ?? 'null';
  } catch {
    return '[unserializable]';
  }
  return text.length <= MAX_ARGUMENT_CHARS ? text : `${text.slice(0, MAX_ARGUMENT_CHARS)}…[${text.length - MAX_ARGUMENT_CHARS} more characters]`;
}
