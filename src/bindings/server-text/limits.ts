/**
 * The caps on what a server says, applied on its way out (docs/reliability.md lists them). A text
 * past its cap is cut after masking; a structure past its cap is refused (an elicitation declined,
 * an input round failed), since half a form or half the questions would mislead whoever answers.
 */

/** A progress notification's `message`. */
export const MAX_PROGRESS_MESSAGE_CHARS = 1000;
/** One line of a server's log (`notifications/message`, stderr) as the host's `onLog` gets it. */
export const MAX_LOG_LINE_CHARS = 8192;
/** An elicitation's `message`. */
export const MAX_ELICITATION_MESSAGE_CHARS = 4000;
/** Any other string of an elicitation: a title, a description, an option's label, a default. */
export const MAX_ELICITATION_TEXT_CHARS = 1000;
/** Fields of one form (`requestedSchema.properties`); more is declined. */
export const MAX_ELICITATION_FIELDS = 32;
/** Keys of any other object in an elicitation; more is declined. */
export const MAX_ELICITATION_KEYS = 64;
/** Items of any array in an elicitation (enum values, options); more is declined. */
export const MAX_ELICITATION_ITEMS = 100;
/** Nesting of an elicitation below its params; deeper is declined. */
export const MAX_ELICITATION_DEPTH = 8;
/** A URL-mode elicitation's `url` (never cut: a cut URL leads elsewhere); longer is declined. */
export const MAX_ELICITATION_URL_CHARS = 8192;
/** Questions in one `input_required` round (2026-07-28); more fails the call, none asked. */
export const MAX_QUESTIONS_PER_ROUND = 16;
/** `elicitation/create` requests one caller has open at once (2025-11-25); more are declined. */
export const MAX_OPEN_QUESTIONS = 16;
