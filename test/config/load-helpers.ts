/**
 * Shortcuts for tests that write a config file and load it.
 */
import assert from 'node:assert/strict';
import { ConfigError as ConfigErrorClass, type ConfigError, type EnvVarMissingError } from '../../src/common/errors.js';
import { loadConfig } from '../../src/config/index.js';
import type { LoadConfigOptions, LoadedConfig, ResolvedHttpConfig, ResolvedStdioConfig, ServerSlot } from '../../src/config/index.js';
import { TempMachine, type TempTree } from './temp-machine.js';

/** Writes `config` as the default file and loads it with `variables` as the machine's env. */
export async function loadWith(
  tree: TempTree,
  config: unknown,
  variables: Readonly<Record<string, string>> = {},
  options: Partial<LoadConfigOptions> = {},
): Promise<LoadedConfig> {
  await tree.writeDefault(config);
  const machine = new TempMachine(tree.home, variables);
  return loadConfig({ machine, cwd: tree.work, ...options });
}

export function slotOf(config: LoadedConfig, name: string): ServerSlot {
  const slot = config.servers.find((candidate) => candidate.name === name);
  assert.ok(slot, `no slot named ${name}`);
  return slot;
}

export function errorOf(config: LoadedConfig, name: string): ConfigError | EnvVarMissingError {
  const slot = slotOf(config, name);
  assert.equal(slot.status, 'error', `expected an error slot for ${name}, got ${slot.status}`);
  return slot.error;
}

export function stdioOf(config: LoadedConfig, name: string): ResolvedStdioConfig {
  const slot = slotOf(config, name);
  assert.equal(slot.status, 'ok', slot.status === 'error' ? slot.error.message : slot.status);
  assert.equal(slot.config.kind, 'stdio');
  return slot.config;
}

export function httpOf(config: LoadedConfig, name: string): ResolvedHttpConfig {
  const slot = slotOf(config, name);
  assert.equal(slot.status, 'ok', slot.status === 'error' ? slot.error.message : slot.status);
  assert.equal(slot.config.kind, 'http');
  return slot.config;
}

export function configErrorOf(config: LoadedConfig, name: string): ConfigError {
  const error = errorOf(config, name);
  assert.ok(error instanceof ConfigErrorClass, `expected a ConfigError for ${name}, got ${error.name}`);
  return error;
}
