const MAX_SUMMARY = 160;

/** The first sentence (or line) of a tool description, bounded: list stays short, describe has the rest. */
export function summarize(description: string | undefined): string {
  if (!description) return '';
  const text = description.trim();
  const lineEnd = text.indexOf('\n');
  let summary = lineEnd === -1 ? text : text.slice(0, lineEnd);
  const sentenceEnd = summary.search(/[.!?](\s|$)/);
  if (sentenceEnd !== -1) summary = summary.slice(0, sentenceEnd + 1);
  summary = summary.trim();
  return summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary;
}
