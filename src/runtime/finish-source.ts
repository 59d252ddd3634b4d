/**
 * The bootstrap's finish fragment (see bootstrap.ts, whose rules it follows): the one-shot global
 * FINISH_GLOBAL that runs the script's function and answers with a tagged string: '=' then the
 * return value's JSON (nothing for undefined), '>' when that JSON is longer than resultLimit, '!'
 * then the thrown value as `{name, message, code?, frames?}` JSON. Uses the bootstrap's G,
 * defineProperty, stringify, Err, Str, `config`, and cut and messageOf from the outputs fragment.
 */

export const FINISH_GLOBAL = '__berryFinish';

export const FINISH_SOURCE = String.raw`const describe = (e) => {
  try {
    if (e instanceof Err) {
      const stack = e.stack, at = typeof stack === 'string' ? stack.indexOf('\n    at ') : -1;
      return {
        name: cut(Str(e.name), 200) || 'Error',
        message: cut(Str(e.message), 65536),
        code: typeof e.code === 'string' ? cut(e.code, 200) : undefined,
        frames: at < 0 ? undefined : stack.slice(at, at + 8192),
      };
    }
    let message;
    if (typeof e === 'object' && e !== null) { try { message = stringify(e); } catch {} }
    const code = (typeof e === 'object' || typeof e === 'function') && e !== null ? e.code : undefined;
    return { name: 'Error', message: cut(message === undefined ? Str(e) : message, 65536), code: typeof code === 'string' ? cut(code, 200) : undefined };
  } catch {
    return { name: 'Error', message: 'The script threw a value that cannot be described' };
  }
};
const run = async (main) => {
  let value, json;
  try { value = await main(); } catch (e) { return '!' + stringify(describe(e)); }
  try { json = stringify(value); } catch (e) {
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
