import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { MachineProcess } from '../../src/remote/machine/machine.js';

/**
 * A minimal MCP stdio transport over a MachineProcess, only to prove the process's streams
 * carry MCP (the real transport lives in src/remote/transport/stdio/stdio-transport.ts).
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #process: MachineProcess;
  readonly #buffer = new ReadBuffer();

  constructor(process: MachineProcess) {
    this.#process = process;
  }

  async start(): Promise<void> {
    this.#process.stdout.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    this.#process.stdin.on('error', (error) => this.onerror?.(error));
    void this.#process.exited.then(() => this.onclose?.());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#process.stdin.write(serializeMessage(message))) resolve();
      else this.#process.stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.#process.stdin.end();
    this.#process.killGroup('SIGTERM');
  }
}
