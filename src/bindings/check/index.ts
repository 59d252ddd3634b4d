export { checkScript, MAX_CHECKED_CHARS } from './check-script.js';
export type { CheckProblem, ScriptCheck, ScriptCheckOptions } from './check-script.js';
export { runChecked } from './checked-run.js';
export type { RefusedRecord } from './checked-run.js';
