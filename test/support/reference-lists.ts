// The reference servers whose answers a model reads (everything, filesystem, memory, the system
// monitor MCP App), and their raw lists as a plain SDK client sees them: what the token-economy
// test and bench section 25 measure describe and list against.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ELICITATION_CAPABILITIES } from '../../src/bindings/operations/elicitation.js';
import { everythingPath, filesystemPath, memoryPath, systemMonitorPath } from './paths.js';

export interface ReferenceServer {
  readonly command: string;
  readonly args: string[];
  readonly env?: Record<string, string>;
}

/** The reference servers as mcp.json entries; files and memory keep their data in `dir`. */
export function referenceServers(dir: string): Record<string, ReferenceServer> {
  const node = process.execPath;
  return {
    everything: { command: node, args: [everythingPath] },
    files: { command: node, args: [filesystemPath, dir] },
    memory: { command: node, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    monitor: { command: node, args: [systemMonitorPath(), '--stdio'] },
  };
}

export interface RawLists {
  readonly tools: { name: string }[];
  /** `tools/list` as compact JSON, in characters. */
  readonly toolsJson: number;
  /** tools/list + resources/list + resources/templates/list + prompts/list (those the server has), compact JSON. */
  readonly allJson: number;
}

/** A server's lists through a plain SDK client with berry-mcp's capabilities (server-everything lists more tools to a client that can elicit). */
export async function rawLists(server: ReferenceServer): Promise<RawLists> {
  const client = new Client({ name: 'raw', version: '1' }, { capabilities: ELICITATION_CAPABILITIES });
  const env = { ...(process.env as Record<string, string>), ...server.env };
  await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env, stderr: 'ignore' }));
  try {
    const caps = client.getServerCapabilities() ?? {};
    const tools = await client.listTools();
    const toolsJson = JSON.stringify(tools).length;
    let allJson = toolsJson;
    if (caps.resources) {
      allJson += JSON.stringify(await client.listResources()).length;
      allJson += JSON.stringify(await client.listResourceTemplates()).length;
    }
    if (caps.prompts) allJson += JSON.stringify(await client.listPrompts()).length;
    return { tools: tools.tools, toolsJson, allJson };
  } finally {
    await client.close();
  }
}

/** What a script prints of a value with text(): JSON with two-space indentation, in characters. */
export const printedSize = (value: unknown): number => JSON.stringify(value, null, 2).length;
