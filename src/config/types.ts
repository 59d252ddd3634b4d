/**
 * The public shapes of the config layer: what `loadConfig` takes and what it hands back.
 */
import type { ConfigError, EnvVarMissingError } from '../common/errors.js';
import type { Machine } from '../remote/machine/machine.js';
import type { SandboxPolicy } from '../remote/machine/sandbox/sandbox-policy.js';
import type { ProtocolSetting } from './protocol.js';

export interface LoadConfigOptions {
  /** The machine that owns the file, the `${VAR}` values, the home directory and the servers. */
  readonly machine: Machine;
  /** Absolute working directory on the machine: relative paths and stdio servers start here. */
  readonly cwd: string;
  /**
   * Path of the config file on the machine. A leading `~` or `~/` means the machine's home
   * directory; a relative path resolves against `cwd`. Blank means the default.
   * @default '~/.config/berry/mcp.json'
   */
  readonly configPath?: string;
  readonly signal?: AbortSignal;
}

export interface LoadedConfig {
  /** Absolute path of the file on the machine. */
  readonly path: string;
  /** False when the file does not exist: then there are no servers (not an error). */
  readonly exists: boolean;
  /** One slot per entry of `mcpServers`, in file order. */
  readonly servers: readonly ServerSlot[];
}

export type ServerSlot =
  | { readonly name: string; readonly status: 'ok'; readonly config: ResolvedServerConfig }
  | { readonly name: string; readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | {
      readonly name: string;
      readonly status: 'error';
      readonly error: ConfigError | EnvVarMissingError;
    };

/** `enabledTools` (only these) or `disabledTools` (all but these) of an entry. */
export interface ToolFilter {
  readonly mode: 'enabled' | 'disabled';
  readonly names: readonly string[];
}

export interface ResolvedCommon {
  readonly name: string;
  /**
   * Hides tools from list, describe, call and typings. Not part of the fingerprint: the same
   * server (and connection) serves both filters.
   */
  readonly toolFilter?: ToolFilter;
  /** The entry's `timeout` (seconds) in milliseconds. @default 60000 */
  readonly timeoutMs: number;
  /** Initialization deadline: `min(timeoutMs, 30000)`. */
  readonly initTimeoutMs: number;
  /** The entry's `protocol`: probe the era (`auto`) or speak one revision. @default 'auto' */
  readonly protocol: ProtocolSetting;
  /**
   * Hex SHA-256 of the canonical resolved entry, name excluded: equal fingerprints may share a
   * connection. An in-process key only; never show it.
   */
  readonly fingerprint: string;
  /**
   * The fingerprint without the entry's credentials (headers, env, oauth): where a tool list the
   * server marked `cacheScope: "public"` is saved for other credentials of the same server. Never shown.
   */
  readonly publicFingerprint: string;
  /** Values to redact from anything shown: resolved env and header values, substituted values. */
  readonly secrets: readonly string[];
  /** Safe human label: the command line or URL as written in the file (`${VAR}` unexpanded). */
  readonly display: string;
}

export interface ResolvedStdioConfig extends ResolvedCommon {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the machine's inherited environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute working directory on the machine. */
  readonly cwd: string;
  /** The entry's `sandbox` block, resolved; absent when it has none or `mode` is `off`. */
  readonly sandbox?: SandboxPolicy;
}

export interface ResolvedHttpConfig extends ResolvedCommon {
  readonly kind: 'http';
  /** An absolute http: or https: URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The entry's `oauth` block with `${VAR}` expanded; absent when the entry has none. */
  readonly oauth?: ResolvedOAuthConfig;
}

/** How berry-mcp identifies itself to the server's authorization server (see docs/auth.md). */
export interface ResolvedOAuthConfig {
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** A PEM private key for `private_key_jwt`. */
  readonly privateKey?: string;
  /** Path of a PEM private key on the target machine (`~` allowed), read when needed. */
  readonly privateKeyFile?: string;
  /** JWS algorithm for `private_key_jwt`. @default 'RS256' */
  readonly signingAlgorithm?: string;
  readonly clientMetadataUrl?: string;
  readonly scopes?: readonly string[];
  /** @default 'authorization_code' */
  readonly grant: 'authorization_code' | 'client_credentials';
  /** Loopback port for the sign-in redirect; an ephemeral one when absent. */
  readonly redirectPort?: number;
}

export type ResolvedServerConfig = ResolvedStdioConfig | ResolvedHttpConfig;
