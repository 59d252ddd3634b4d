export type { FileInfo, FileInfoOptions, Machine, MachineProcess, ProcessExit, SpawnSpec, WriteFileOptions } from './machine.js';
export { confineSpawnSpec, unconfinedNote } from './sandbox/sandbox-spawn.js';
export type { SandboxBind, SandboxPolicy } from './sandbox/sandbox-policy.js';
export { LocalMachine } from './local-machine.js';
export { SshMachine } from './ssh/ssh-machine.js';
export type { LifetimeEndEvent, LifetimeEndListener } from './ssh/ssh-machine.js';
export type { SshMachineOptions } from './ssh/ssh-options.js';
