export { generateTypings, normalizeTypingsOptions } from './generate-typings.js';
export type { TypingsOptions, TypingsServerInput } from './generate-typings.js';
