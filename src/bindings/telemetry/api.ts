/**
 * @opentelemetry/api, loaded on first use: it is 44 CommonJS files, a sizeable part of a one-shot
 * `berry-mcp run` that records nothing. Until something registers through the API (an SDK, a
 * context manager), every call of it is a no-op, and `registered()` says so without loading it.
 */
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';

export type OtelApi = typeof Api;

const require = createRequire(import.meta.url);
/** Where the API (1.x, any copy of it in the process) keeps what was registered through it (its internal/global-utils). */
const GLOBAL = Symbol.for('opentelemetry.js.api.1');
let api: OtelApi | undefined;

/** The API, loaded now if it was not. */
export function otel(): OtelApi {
  api ??= require('@opentelemetry/api') as OtelApi;
  return api;
}

/** The API once loaded or once anything was registered through it; undefined while every call of it would be a no-op. */
export function registered(): OtelApi | undefined {
  return api ?? ((globalThis as Record<symbol, unknown>)[GLOBAL] === undefined ? undefined : otel());
}
