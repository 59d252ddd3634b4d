/**
 * The TypeScript compiler, loaded on first use: about 350 ms of module evaluation that a script
 * naming no `tools.*` function (and every command that runs no script) never pays.
 */
type TypeScript = typeof import('typescript');

let loading: Promise<TypeScript> | undefined;
let loaded = false;

/** True once the compiler is loaded (a check no longer waits for it). */
export function typeScriptLoaded(): boolean {
  return loaded;
}

export function loadTypeScript(): Promise<TypeScript> {
  loading ??= import('typescript').then((module) => {
    loaded = true;
    return ((module as { default?: TypeScript }).default ?? module) as TypeScript;
  });
  return loading;
}

export type { TypeScript };
