export type { Machine, MachineProcess, ProcessExit, SpawnSpec, WriteFileOptions } from './machine.js';
export { LocalMachine } from './local-machine.js';
export { MachineStdioTransport } from './stdio-transport.js';
export type { MachineStdioTransportOptions, StdioShutdownOptions } from './stdio-transport.js';
export { closeHttpTransport, createHttpTransport, createMachineFetch } from './http-transport.js';
export type { HttpTransportOptions } from './http-transport.js';
export { SshMachine } from './ssh-machine.js';
export type { LifetimeEndEvent, LifetimeEndListener } from './ssh-machine.js';
export type { SshMachineOptions } from './ssh-options.js';
