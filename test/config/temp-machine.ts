/**
 * A tiny Machine over real files in a temp dir, with a given environment and home directory.
 * Independent of src/remote/machine/local-machine.ts on purpose.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Dispatcher } from 'undici';
import type { Machine, MachineProcess } from '../../src/remote/machine/machine.js';

export class TempMachine implements Machine {
  readonly identity = 'test:temp';
  envCalls = 0;
  homeCalls = 0;
  readonly reads: string[] = [];

  constructor(
    readonly home: string,
    readonly variables: Readonly<Record<string, string>> = {},
    readonly failRead?: (path: string) => Error | undefined,
  ) {}

  async lifetime(): Promise<string> {
    return 'lifetime-1';
  }

  async env(): Promise<Readonly<Record<string, string>>> {
    this.envCalls++;
    return this.variables;
  }

  async homeDir(): Promise<string> {
    this.homeCalls++;
    return this.home;
  }

  async readFile(path: string): Promise<string | undefined> {
    this.reads.push(path);
    const failure = this.failRead?.(path);
    if (failure !== undefined) throw failure;
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  writeFile(): Promise<void> {
    throw new Error('not used');
  }

  rename(): Promise<void> {
    throw new Error('not used');
  }

  mkdir(): Promise<void> {
    throw new Error('not used');
  }

  unlink(): Promise<void> {
    throw new Error('not used');
  }

  readLink(): Promise<string> {
    throw new Error('not used');
  }

  realPath(): Promise<string> {
    throw new Error('not used');
  }

  chmod(): Promise<void> {
    throw new Error('not used');
  }

  spawn(): Promise<MachineProcess> {
    throw new Error('not used');
  }

  dispatcher(): Dispatcher {
    throw new Error('not used');
  }

  async release(): Promise<void> {}

  async close(): Promise<void> {}

  fileInfo(): Promise<undefined> {
    throw new Error('not used');
  }

  userId(): Promise<number> {
    throw new Error('not used');
  }
}

/** A temp dir with `home/` and `work/` inside; `remove()` deletes it. */
export interface TempTree {
  readonly root: string;
  readonly home: string;
  readonly work: string;
  /** Writes `content` (a string, or an object as JSON) at `path` (absolute), creating dirs. */
  write(path: string, content: unknown): Promise<string>;
  /** Writes the default config file `~/.config/berry/mcp.json`. */
  writeDefault(content: unknown): Promise<string>;
  remove(): Promise<void>;
}

export async function createTempTree(): Promise<TempTree> {
  const root = await mkdtemp(join(tmpdir(), 'berry-config-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await mkdir(home);
  await mkdir(work);
  const write = async (path: string, content: unknown): Promise<string> => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };
  return {
    root,
    home,
    work,
    write,
    writeDefault: (content) => write(join(home, '.config/berry/mcp.json'), content),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
