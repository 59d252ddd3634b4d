/** `host.authorize` and `host.logout` in the operations' shape; sign-in.js (the SDK's OAuth client) loads when used. */
import type { OperationContext } from './context.js';
import type { AuthorizeResult } from './sign-in.js';

export interface SignInRequest {
  readonly server: string;
}

/** Signs in to an HTTP server now, even if tokens are stored. */
export function authorize(context: OperationContext, request: SignInRequest, options: { readonly signal?: AbortSignal }): Promise<AuthorizeResult> {
  return context.operation(options.signal, async () => {
    const prepared = await context.prepare(options.signal);
    const { httpConfigFor, signIn } = await import('./sign-in.js');
    const config = httpConfigFor(context.resolve(prepared, request.server), prepared.loaded.path);
    return signIn({ machine: context.machine, config, log: context.log, auth: context.auth, signal: context.openSignal(options.signal) });
  });
}

/** Removes the stored tokens and registered client of an HTTP server; true when there were any. */
export function logout(context: OperationContext, request: SignInRequest, options: { readonly signal?: AbortSignal }): Promise<boolean> {
  return context.operation(options.signal, async () => {
    const prepared = await context.prepare(options.signal);
    const { httpConfigFor, signOut } = await import('./sign-in.js');
    const config = httpConfigFor(context.resolve(prepared, request.server), prepared.loaded.path);
    return signOut(config, context.auth, options.signal);
  });
}
