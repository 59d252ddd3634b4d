/**
 * Who berry-mcp is to an authorization server, from the entry's `oauth` block: the client
 * metadata it registers with, the private_key_jwt signer, the client_credentials request.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/client';
import type { OAuthClientMetadata } from '@modelcontextprotocol/client';
import type { ResolvedOAuthConfig } from '../config/index.js';
import { BerryError } from '../common/errors.js';
import type { Machine } from '../remote/machine/index.js';

export function isInteractive(config: ResolvedOAuthConfig | undefined): boolean {
  return config?.grant !== 'client_credentials';
}

export function clientMetadataFor(config: ResolvedOAuthConfig | undefined, redirectUrl: string): OAuthClientMetadata {
  const interactive = isInteractive(config);
  const authMethod =
    config?.privateKey !== undefined || config?.privateKeyFile !== undefined
      ? 'private_key_jwt'
      : config?.clientSecret !== undefined
        ? 'client_secret_basic'
        : 'none';
  const metadata = {
    client_name: 'berry-mcp',
    // OIDC DCR §2 / SEP-837: the loopback redirect makes berry-mcp a native app (RFC 8252); a
    // client_credentials client has no redirect and registers as the default, web.
    application_type: interactive ? 'native' : 'web',
    redirect_uris: interactive ? [redirectUrl] : [],
    grant_types: interactive ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
    response_types: interactive ? ['code'] : [],
    token_endpoint_auth_method: authMethod,
    ...(config?.scopes?.length ? { scope: config.scopes.join(' ') } : {}),
  };
  return metadata;
}

/** For client_credentials only; the authorization code grant uses the SDK's default request. */
export function clientCredentialsRequest(config: ResolvedOAuthConfig | undefined, scope: string | undefined): URLSearchParams | undefined {
  if (isInteractive(config)) return undefined;
  const params = new URLSearchParams({ grant_type: 'client_credentials' });
  const wanted = config?.scopes?.length ? config.scopes.join(' ') : scope;
  if (wanted) params.set('scope', wanted);
  return params;
}

/** The private_key_jwt signer of a configured client with a key (read on first use), else undefined. */
export function privateKeyJwtAuth(
  config: ResolvedOAuthConfig | undefined,
  machine: Machine,
  server: string,
): OAuthClientProvider['addClientAuthentication'] | undefined {
  if (config?.clientId === undefined || (config.privateKey === undefined && config.privateKeyFile === undefined)) return undefined;
  const clientId = config.clientId;
  let signer: ReturnType<typeof createPrivateKeyJwtAuth> | undefined;
  return async (headers, params, url, metadata) => {
    signer ??= createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey: await readPrivateKey(config, machine, server),
      alg: config.signingAlgorithm ?? 'RS256',
    });
    await signer(headers, params, url, metadata);
  };
}

async function readPrivateKey(config: ResolvedOAuthConfig, machine: Machine, server: string): Promise<string> {
  if (config.privateKey !== undefined) return config.privateKey;
  const file = config.privateKeyFile ?? '';
  const path = file.startsWith('~/') ? `${await machine.homeDir()}${file.slice(1)}` : file;
  const text = await machine.readFile(path);
  if (text === undefined) {
    throw new BerryError('MCP_AUTH_REQUIRED', `Server "${server}": the private key file ${file} does not exist on ${machine.identity}.`);
  }
  return text;
}
