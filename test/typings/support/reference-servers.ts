// The real reference servers from npm, started over stdio just long enough to list their tools.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Prompt, Tool } from '@modelcontextprotocol/client';
import { everythingPath, filesystemPath, memoryPath } from '../../support/paths.js';

export interface ReferenceServers {
  /** Tool lists by the server names of examples/mcp.json: everything, files, memory. */
  readonly tools: ReadonlyMap<string, Tool[]>;
  /** Prompt lists of the servers that publish prompts (everything). */
  readonly prompts: ReadonlyMap<string, Prompt[]>;
  close(): Promise<void>;
}

/** Starts server-everything, server-filesystem (on a temp dir) and server-memory, lists their tools. */
export async function listReferenceServers(): Promise<ReferenceServers> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berry-typings-servers-'));
  const specs: [string, string[], Record<string, string>][] = [
    ['everything', [everythingPath], {}],
    ['files', [filesystemPath, dir], {}],
    ['memory', [memoryPath], { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') }],
  ];
  const clients: Client[] = [];
  const close = async (): Promise<void> => {
    await Promise.allSettled(clients.map((client) => client.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const lists = await Promise.all(
      specs.map(async ([name, args, env]) => {
        const client = new Client({ name: 'berry-mcp-typings-test', version: '0.0.0' });
        clients.push(client);
        const transport = new StdioClientTransport({
          command: process.execPath,
          args,
          env: { ...(process.env as Record<string, string>), ...env },
          stderr: 'ignore',
        });
        await client.connect(transport);
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        const prompts = client.getServerCapabilities()?.prompts ? (await client.listPrompts()).prompts : [];
        return [name, tools, prompts] as const;
      }),
    );
    return {
      tools: new Map(lists.map(([name, tools]) => [name, tools])),
      prompts: new Map(lists.filter(([, , prompts]) => prompts.length > 0).map(([name, , prompts]) => [name, prompts])),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
