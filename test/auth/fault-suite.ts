/**
 * A describe block's OAuth fixture with switchable faults: one fixture process, a `docs` entry for
 * it, a fresh token dir per sign-in, hosts closed and faults cleared after each test.
 */
import { join } from 'node:path';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { setFault, testHosts } from './helpers.js';

export interface FaultSuite {
  readonly fixture: OAuthFixture;
  readonly configPath: string;
  /** A scratch directory removed after the suite. */
  readonly dir: string;
  readonly hosts: ReturnType<typeof testHosts>;
  freshTokenDir(): string;
  /** `endless=token`, `iss=wrong`, …; '' for none. */
  fault(query: string): Promise<void>;
}

/** Call inside a describe: registers its before/afterEach/after hooks. */
export function faultSuite(prefix: string, args: string[] = []): FaultSuite {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let fixture: OAuthFixture | undefined;
  let configPath = '';
  let dirs = 0;
  const hosts = testHosts();
  const suite: FaultSuite = {
    get fixture() {
      return fixture!;
    },
    get configPath() {
      return configPath;
    },
    get dir() {
      return tmp!.dir;
    },
    hosts,
    freshTokenDir: () => join(tmp!.dir, `tokens-${++dirs}`),
    fault: (query) => setFault(fixture!.base, query),
  };
  before(async () => {
    tmp = tempDir(prefix);
    fixture = await startOAuthFixture(args);
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
  });
  afterEach(async () => {
    await hosts.closeAll();
    await suite.fault('');
  });
  after(async () => {
    await fixture?.close();
    tmp?.cleanup();
  });
  return suite;
}
