/**
 * The bootstrap's finish fragment (see bootstrap.ts, whose rules it follows): the one-shot global
 * FINISH_GLOBAL that runs the script's function and answers with a tagged string: '=' then the
 * return value's JSON (nothing for undefined), '>' when that JSON is longer than resultLimit, '!'
 * then the thrown value as `{name, message, code?, frames?}` JSON. Uses the bootstrap's G,
 * defineProperty, stringify, Err, Str, `config`, FLAT from the flattening guards, cut, messageOf and
 * noHugeStrings from the outputs fragment, and isArray from the tools fragment.
 */

export const FINISH_GLOBAL = '__berryFinish';

export const FINISH_SOURCE = String.raw`const describe = (e) => {
  try {
    if (e instanceof Err) {
      // A stack carries the message: one too long to be flat is not searched for frames.
      const stack = e.stack, at = typeof stack === 'string' && stack.length <= FLAT ? stack.indexOf('\n    at ') : -1;
      return {
        name: cut(Str(e.name), 200) || 'Error',
        message: cut(Str(e.message), 65536),
        code: typeof e.code === 'string' ? cut(e.code, 200) : undefined,
        frames: at < 0 ? undefined : stack.slice(at, at + 8192),
      };
    }
    let message;
    if (typeof e === 'object' && e !== null) { try { message = stringify(e, noHugeStrings); } catch {} }
    const code = (typeof e === 'object' || typeof e === 'function') && e !== null ? e.code : undefined;
    return { name: 'Error', message: cut(message === undefined ? Str(e) : message, 65536), code: typeof code === 'string' ? cut(code, 200) : undefined };
  } catch {
    return { name: 'Error', message: 'The script threw a value that cannot be described' };
  }
};
// Counts what the return value's JSON holds at least (each value, strings' characters, objects'
// keys) while stringify builds it, and stops it past resultLimit: a longer value is refused
// without being built, and a long rope in it without being copied flat.
const BEYOND = {};
let returned = 0;
const measure = function (key, value) {
  returned += (isArray(this) ? 0 : key.length) + (typeof value === 'string' ? value.length : 1);
  if (returned > config.resultLimit) throw BEYOND;
  return value;
};
const run = async (main) => {
  let value, json;
  try { value = await main(); } catch (e) { return '!' + stringify(describe(e)); }
  returned = 0;
  try { json = stringify(value, measure); } catch (e) {
    if (e === BEYOND) return '>';
    return '!' + stringify({ name: 'TypeError', message: 'The return value cannot be converted to JSON (' + messageOf(e) + ')' });
  }
  if (json === undefined) return '=';
  return json.length > config.resultLimit ? '>' : '=' + json;
};
const finish = (main) => {
  delete G.${FINISH_GLOBAL};
  return run(main);
};
defineProperty(G, '${FINISH_GLOBAL}', { value: finish, configurable: true });
`;
