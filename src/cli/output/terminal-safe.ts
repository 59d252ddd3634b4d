/**
 * Text from servers and scripts (tool descriptions and results, stderr, logs, error messages) is
 * untrusted: raw, an ESC or CSI sequence could move the cursor, rewrite earlier lines, set the
 * window title, or make a hyperlink (OSC 8), and a bidi override could reorder what people read.
 */

// C0 controls except \t and \n, DEL, C1 controls, and the bidi embedding/override/isolate marks.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const show = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
};

/** Shows every control character as a visible `\xHH` (`\uHHHH`) escape; \n and \t stay, \r\n becomes \n. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, show);
}
