export { RunTrace } from './run-span.js';
export { parentContext } from './propagate.js';
export { observe } from './gauges.js';
export { tracing } from './instruments.js';
