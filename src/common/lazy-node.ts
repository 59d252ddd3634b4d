/**
 * Node's crypto, child_process and net, loaded on first use. Node started with --no-node-snapshot
 * (`run` and `serve`) compiles each built-in module it loads: crypto with what it loads is ≈ 20
 * internal modules (+14 ms of a one-shot `run`), child_process and net ≈ 10 (+7 ms), and a run
 * that starts no server and takes no lock uses none of them (measured).
 */
import { createRequire } from 'node:module';

type Crypto = typeof import('node:crypto');
type ChildProcess = typeof import('node:child_process');
type Net = typeof import('node:net');

const require = createRequire(import.meta.url);
let crypto: Crypto | undefined;
let childProcess: ChildProcess | undefined;
let net: Net | undefined;

export function nodeCrypto(): Crypto {
  crypto ??= require('node:crypto') as Crypto;
  return crypto;
}

export function nodeChildProcess(): ChildProcess {
  childProcess ??= require('node:child_process') as ChildProcess;
  return childProcess;
}

export function nodeNet(): Net {
  net ??= require('node:net') as Net;
  return net;
}
