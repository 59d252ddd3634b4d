/**
 * The TypeScript compiler, loaded on first use: about 350 ms of module evaluation that a script
 * naming no `tools.*` function (and every command that runs no script) never pays.
 */
type TypeScript = typeof import('typescript');

let loading: Promise<TypeScript> | undefined;

export function loadTypeScript(): Promise<TypeScript> {
  loading ??= import('typescript').then((module) => ((module as { default?: TypeScript }).default ?? module) as TypeScript);
  return loading;
}

export type { TypeScript };
