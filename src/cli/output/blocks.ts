import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { RenderedBlock } from './render.js';
import { nodeFsPromises } from '../../common/lazy-node.js';

/** Where images go: --out, else one folder per run under the temp dir, named by time and pid. */
export class ImageWriter {
  readonly #outDir: string | undefined;
  readonly #cwd: string;
  #dir: string | undefined;
  #count = 0;

  constructor(outDir: string | undefined, cwd: string) {
    this.#outDir = outDir;
    this.#cwd = cwd;
  }

  /** Writes one image and returns its path. */
  async write(image: { readonly data: string; readonly mimeType: string }): Promise<string> {
    if (this.#dir === undefined) {
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      const dir = this.#outDir === undefined ? join(tmpdir(), 'berry-mcp', `${stamp}-${process.pid}`) : resolve(this.#cwd, this.#outDir);
      await nodeFsPromises().mkdir(dir, { recursive: true });
      this.#dir = dir;
    }
    const ext = image.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
    const path = join(this.#dir, `image-${++this.#count}.${ext}`);
    await nodeFsPromises().writeFile(path, Buffer.from(image.data, 'base64'));
    return path;
  }
}

/** Text as is (one trailing newline), images written to files and named by path. */
export async function renderBlocks(blocks: readonly RenderedBlock[], images: ImageWriter): Promise<string> {
  let text = '';
  for (const block of blocks) {
    if (block.text !== undefined) {
      text += block.text.endsWith('\n') ? block.text : `${block.text}\n`;
    } else if (block.image) {
      text += `[image ${block.image.mimeType} written to ${await images.write(block.image)}]\n`;
    }
  }
  return text;
}

export async function readStream(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
