/** `berry-mcp read SERVER URI`: a resource's contents (text as is, blobs written to files). */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Host } from '../../host.js';

export interface ResourceCommandIo {
  readonly stdout: Writable;
  readonly cwd: string;
}

export async function readCommand(
  host: Host,
  positionals: readonly string[],
  options: { readonly json: boolean; readonly out?: string | undefined },
  io: ResourceCommandIo,
  signal: AbortSignal,
): Promise<number> {
  const [server, uri] = positionals;
  const result = await host.read({ server: server!, uri: uri! }, { signal });
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  let dir: string | undefined;
  let count = 0;
  for (const content of result.contents) {
    if ('text' in content && typeof content.text === 'string') {
      io.stdout.write(content.text.endsWith('\n') ? content.text : `${content.text}\n`);
    } else if ('blob' in content && typeof content.blob === 'string') {
      dir ??= options.out === undefined ? await mkdtemp(join(tmpdir(), 'berry-mcp-read-')) : resolve(io.cwd, options.out);
      await mkdir(dir, { recursive: true });
      const ext = content.mimeType?.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
      const path = join(dir, `resource-${++count}.${ext}`);
      await writeFile(path, Buffer.from(content.blob, 'base64'));
      io.stdout.write(`[${content.mimeType ?? 'binary'} ${content.uri} written to ${path}]\n`);
    }
  }
  return 0;
}
