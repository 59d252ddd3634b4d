/**
 * amaro's refusals in words a model acts on: the construct, where, and what to write instead.
 * Its messages name the construct ("TypeScript enum is not supported in strip-only mode").
 */

/** [what amaro's message says, the construct, why and what instead], first match wins. */
const CONSTRUCTS: readonly (readonly [RegExp, string, string])[] = [
  [/\benum\b/, 'enum', 'needs code generation; use a const object instead: const Color = { Red: "red" } as const'],
  [/`module` keyword/, 'module declaration', 'needs code generation; use a plain object instead'],
  [/\bnamespace\b/, 'namespace with values', 'needs code generation; use a plain object instead'],
  [/parameter property/, 'parameter property', 'needs code generation; declare the field and assign it in the constructor: this.x = x'],
  [/angle-bracket/, 'type assertion `<T>value`', 'is not supported when types are only stripped; write `value as T`'],
  [/binary expression grouping/, 'type assertion', 'would change how the expression groups once stripped; put it in parentheses: (value as T)'],
];

/** "enum at line 3:1 needs code generation; use …", or amaro's own words for a construct not listed. */
export function unsupportedMessage(amaroMessage: string, line: number, column: number): string {
  const where = `at line ${line}:${column}`;
  for (const [pattern, construct, instead] of CONSTRUCTS) {
    if (pattern.test(amaroMessage)) return `TypeScript ${construct} ${where} ${instead} (berry-mcp only strips types).`;
  }
  return `TypeScript ${where}: ${amaroMessage} (berry-mcp only strips types).`;
}

/** A decorator: V8 here has none, and stripping types leaves it. */
export function decoratorMessage(line: number, column: number): string {
  return `decorator at line ${line}:${column} is not supported: the sandbox's JavaScript has no decorators (berry-mcp only strips types); call the decorating function yourself.`;
}
