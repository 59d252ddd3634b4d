// Clients from different loopback source addresses (127.0.0.2, 127.0.0.3, …: Linux routes all of
// 127/8 to lo), so that a balancer hashing $remote_addr spreads them as it would spread hosts.
import { Agent, fetch as undiciFetch } from 'undici';

export interface SourceFetch {
  readonly address: string;
  /** A fetch whose connections all leave from `address`; give it to an SDK transport's `fetch` option. */
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

/** The `n`th client address: 127.0.0.(n + 2), n from 0. */
export function loopbackAddress(n: number): string {
  if (n < 0 || n > 252) throw new Error(`loopback client address ${n} out of range`);
  return `127.0.0.${n + 2}`;
}

/** A fetch bound to the source address `address`. */
export function fetchFrom(address: string): SourceFetch {
  const agent = new Agent({ localAddress: address });
  const bound = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher: agent })) as unknown as typeof fetch;
  return { address, fetch: bound, close: () => agent.close() };
}
