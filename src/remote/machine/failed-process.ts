/** A process that never started: its streams are ended, its stdin refuses, `exited` carries why. */
import { PassThrough, type Readable, Writable } from 'node:stream';
import type { MachineProcess } from './machine.js';

export function failedProcess(error: Error): MachineProcess {
  const ended = (): Readable => {
    const stream = new PassThrough();
    stream.end();
    return stream;
  };
  const stdin = new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE: the process never started'), { code: 'EPIPE' }));
    },
  });
  return {
    pid: undefined,
    stdin,
    stdout: ended(),
    stderr: ended(),
    exited: Promise.resolve({ code: undefined, signal: undefined, error }),
    killGroup: () => {},
  };
}
