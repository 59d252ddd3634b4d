/**
 * The config layer: the mcp.json file on the target machine, validated and resolved.
 */
export { loadConfig, readConfigFile } from './load.js';
export { configuredNames, withServer, withoutServer } from './edit/edit-config.js';
export { replaceConfigText } from './edit/write-config.js';
export { DEFAULT_CONFIG_PATH, resolveConfigPath } from './config-path.js';
export { createRedactor, secretsOfServers } from './redact/redact.js';
export { createValueRedactor, noRedaction, valueRedactorOf, valueRedactorOfSecrets, type ValueRedactor } from './redact/redact-value.js';
export { SPOKEN_REVISIONS, type ProtocolSetting } from './protocol.js';
export type {
  LoadConfigOptions,
  LoadedConfig,
  ResolvedCommon,
  ResolvedHttpConfig,
  ResolvedOAuthConfig,
  ResolvedServerConfig,
  ResolvedStdioConfig,
  ServerSlot,
  ToolFilter,
} from './types.js';
