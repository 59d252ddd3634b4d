/**
 * Warnings for secrets typed into `berry-mcp add` as literal values: they would be stored in the
 * config file as written, where `${VAR}` keeps them in the target machine's environment. A
 * warning names where the value is, never the value.
 */

/** Words that make a name a secret's name: `API_KEY`, `X-Api-Key`, `githubToken`, `Authorization`. */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'key',
  'apikey',
  'password',
  'passwd',
  'pass',
  'credential',
  'credentials',
  'auth',
  'authorization',
  'cookie',
  'private',
  'pat',
  'bearer',
]);
/** A credential scheme in a header value: `Bearer abc…`, `Basic …`, `token …`. */
const SCHEME = /^\s*(bearer|basic|token|digest|apikey)\s+\S/i;
/** A long run of token characters, as generated keys look: mixed case and digits, or a known prefix. */
const TOKEN_CHARS = /^[A-Za-z0-9][A-Za-z0-9_\-.+/=]{23,}$/;
const KNOWN_PREFIX = /^(sk-|sk_|pk_|rk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abpr]-|AKIA|AIza|eyJ)/;

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

function isSecretName(name: string): boolean {
  return words(name).some((w) => SECRET_WORDS.has(w));
}

/** A value typed literally (no `${VAR}` in it) that looks like a credential. */
function looksSecret(name: string | undefined, value: string): boolean {
  if (value === '' || value.includes('${')) return false;
  if ((name !== undefined && isSecretName(name)) || SCHEME.test(value)) return true;
  if (!TOKEN_CHARS.test(value)) return false;
  return KNOWN_PREFIX.test(value) || (/[0-9]/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value) && !value.includes('/'));
}

/** A `${NAME}` a person could use instead: made from the server and where the value goes, e.g. DOCS_TOKEN. */
function variableFor(server: string, name: string): string {
  const base = `${server}_${name}`
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(base) ? `_${base}` : base;
}

export interface LiteralSources {
  readonly server: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly args?: readonly string[];
}

/** One sentence per literal that looks like a secret, naming where it is and the `${VAR}` to use. */
export function secretLiteralWarnings(sources: LiteralSources): string[] {
  const warnings: string[] = [];
  const warn = (where: string, variable: string): void => {
    warnings.push(
      `${where} looks like a secret typed as a literal; it would be stored in the config file as written. ` +
        `Set ${variable} in the target machine's environment and write \${${variable}} instead.`,
    );
  };
  for (const [key, value] of Object.entries(sources.env ?? {})) {
    // An env key that is a variable name already is the one to use.
    if (looksSecret(key, value)) warn(`--env ${key}`, /^[A-Z_][A-Z0-9_]*$/.test(key) ? key : variableFor(sources.server, key));
  }
  for (const [name, value] of Object.entries(sources.headers ?? {})) {
    if (looksSecret(name, value)) warn(`the value of header ${name}`, variableFor(sources.server, name === 'Authorization' ? 'TOKEN' : name));
  }
  if (sources.url !== undefined) {
    for (const [where, name] of urlCredentials(sources.url)) warn(`the URL's ${where}`, variableFor(sources.server, name));
  }
  const args = sources.args ?? [];
  args.forEach((arg, i) => {
    const inline = /^--?([A-Za-z][\w-]*)=(.*)$/s.exec(arg);
    if (inline !== null && isSecretName(inline[1]!) && looksSecret(inline[1], inline[2]!))
      warn(`the argument --${inline[1]}=…`, variableFor(sources.server, inline[1]!));
    const flag = /^--?([A-Za-z][\w-]*)$/.exec(arg);
    const next = args[i + 1];
    if (flag !== null && next !== undefined && isSecretName(flag[1]!) && looksSecret(flag[1], next))
      warn(`the argument after ${arg}`, variableFor(sources.server, flag[1]!));
  });
  return warnings;
}

/** Where the URL carries a literal secret (its password, query parameters named like secrets), and a name for it. */
function urlCredentials(url: string): [string, string][] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const found: [string, string][] = [];
  if (parsed.password !== '' && !decodeURIComponent(parsed.password).includes('${')) found.push(['password', 'PASSWORD']);
  for (const [name, value] of parsed.searchParams) if (isSecretName(name) && looksSecret(name, value)) found.push([`query parameter ${name}`, name]);
  return found;
}
