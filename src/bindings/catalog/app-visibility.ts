/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, stable 2026-01-26) on a listed tool: who
 * may use it (`_meta.ui.visibility`) and the `ui://` resource an Apps host renders its results
 * with. The extension says a host MUST NOT offer the agent a tool whose visibility does not include
 * "model"; every script, serve client and CLI user is that agent here, so anything but a plain
 * "model" in a well-formed list hides the tool. Only a tool with no visibility at all gets the
 * extension's default, ["model", "app"].
 */
import type { Tool } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../common/json-object.js';

/** Why a tool is kept from the model: it says it is for its app only, or says it unreadably. */
export type AppHiding = 'app-only' | 'malformed';

/** A `ui://` URI as a model may be shown it: printable ASCII, bounded. */
const UI_URI = /^ui:\/\/[\x21-\x7e]{1,1024}$/;

// A listing's tool objects live as long as the listing; the verdict is read once per tool, not per call.
const verdicts = new WeakMap<Tool, AppHiding | null>();

/** `app-only` or `malformed` when the model may not see `tool`; undefined when it may. */
export function appHiding(tool: Tool): AppHiding | undefined {
  let verdict = verdicts.get(tool);
  if (verdict === undefined) {
    verdict = read(tool) ?? null;
    verdicts.set(tool, verdict);
  }
  return verdict ?? undefined;
}

function read(tool: Tool): AppHiding | undefined {
  const ui = own(tool._meta, 'ui');
  // No MCP Apps metadata (null is how many serializers write "none"): the default, ["model", "app"].
  if (ui === undefined || ui === null) return undefined;
  if (!isJsonObject(ui)) return 'malformed';
  const visibility = own(ui, 'visibility');
  if (visibility === undefined || visibility === null) return undefined;
  if (!Array.isArray(visibility)) return 'malformed';
  return visibility.includes('model') ? undefined : 'app-only';
}

/**
 * The `ui://` resource that renders `tool`'s results in an MCP Apps host: `_meta.ui.resourceUri`,
 * else the deprecated flat `_meta["ui/resourceUri"]`; undefined when neither is a `ui://` URI.
 */
export function uiResourceOf(tool: Tool): string | undefined {
  const ui = own(tool._meta, 'ui');
  const uri = (isJsonObject(ui) ? own(ui, 'resourceUri') : undefined) ?? own(tool._meta, 'ui/resourceUri');
  return typeof uri === 'string' && UI_URI.test(uri) ? uri : undefined;
}

// Own keys only: a key "__proto__" in the JSON is a plain key to every other reader of it.
function own(value: unknown, key: string): unknown {
  return isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}
