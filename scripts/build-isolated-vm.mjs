// Makes sure the isolated-vm that this Node uses loads; builds it from source only if it does not.
// Run by the postinstall script where berry-mcp is installed as a package (a tarball or the
// registry: `prepare` does not run there), by the prepare script in a checkout (`npm install`,
// `npm ci`: after tsc, since a fresh clone has no dist/ yet at postinstall), and by
// `npm run build:isolated-vm`.
//
// Why not isolated-vm's own install script: package.json installs every major under an alias and
// denies their scripts (allowScripts), since 5's script compiles it (1-3 min) on every Node, also
// where it is never loaded. 6 and 7 ship prebuilt binaries that load without any script. So this
// builds only the one alias the loader picks, and only when it does not load: on Node 20, 5.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line) => process.stderr.write(`build-isolated-vm: ${line}\n`);
const loader = join(root, 'dist/src/runtime/load-ivm.js');
// A checkout has its tsconfig.json; the package's `files` leave it out.
const checkout = existsSync(join(root, 'tsconfig.json'));
const again = checkout ? '`npm run build:isolated-vm`' : '`npm rebuild berry-mcp` (where berry-mcp is installed)';
if (!existsSync(loader)) {
  // A checkout before its first tsc (npm ci of a fresh clone): prepare runs this again after tsc.
  if (checkout && !existsSync(join(root, 'dist/src'))) process.exit(0);
  say(`${loader} is missing: a berry-mcp package without its build (reinstall it), or load-ivm.ts moved and this script did not follow.`);
  process.exit(1);
}
const { isolatedVmFor } = await import(loader);
const choice = isolatedVmFor(Number(process.versions.node.split('.')[0]));
// Resolved as the loader's import() resolves it: an installed package's dependencies sit beside it.
const dir = aliasDir(choice.packageName);

if (dir === undefined) {
  say(`${choice.packageName} is not installed (npm left out the optional dependency); \`run\` will say so. Reinstall with this Node.`);
  process.exit(0);
}
const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const label = `isolated-vm ${version} (${choice.packageName}) on Node ${process.version}`;

if (loads()) {
  if (process.argv.includes('--verbose')) say(`${label} loads`);
  process.exit(0);
}

// BERRY_ISOLATED_VM_BINARY: an isolated_vm.node built before for this very isolated-vm and Node (a
// CI cache, test/cli/fresh-clone.test.ts), used instead of compiling when it loads here.
const reuse = process.env.BERRY_ISOLATED_VM_BINARY;
if (reuse) {
  mkdirSync(join(dir, 'out'), { recursive: true });
  copyFileSync(reuse, join(dir, 'out', 'isolated_vm.node'));
  if (loads()) {
    say(`${label}: using ${reuse} (BERRY_ISOLATED_VM_BINARY), not compiling`);
    process.exit(0);
  }
  say(`${reuse} (BERRY_ISOLATED_VM_BINARY) does not load with ${label}: building instead`);
}

const nodeGyp = process.env.npm_config_node_gyp ?? findNpmNodeGyp();
if (nodeGyp === undefined) {
  say(`${label} has no binary for this Node, and node-gyp was not found: run ${again}.`);
  process.exit(0);
}
const nodedir = ownHeaders();
const args = [nodeGyp, 'rebuild', '--release', '-j', 'max', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
// Without headers of this very version, node-gyp fetches them; an inherited nodedir is another Node's.
const env = { ...process.env };
if (!nodedir) delete env.npm_config_nodedir;
say(`building ${label} from source (1.5 to 4 minutes on 2 cores)...`);
const started = Date.now();
const build = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const logFile = join(dir, 'build-berry.log');
writeFileSync(logFile, `${build.stdout ?? ''}${build.stderr ?? ''}`);
const seconds = Math.round((Date.now() - started) / 1000);
// node-gyp's objects, about 75 MB: the module is in out/ (as isolated-vm's own script, `node-gyp clean`).
if (build.status === 0) rmSync(join(dir, 'build'), { recursive: true, force: true });
if (build.status === 0 && loads()) {
  say(`built in ${seconds} s`);
} else {
  const tail = `${build.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
  say(`building ${label} failed after ${seconds} s (log: ${logFile}):\n${tail}`);
  say(`everything but \`run\` works; install python3, make and g++, then run ${again}.`);
}

/** In a child process: a failed load must not leave a half-loaded native module in this one. */
function loads() {
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(dir)})`], { stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * The running Node's own headers (<prefix>/include/node), when their version matches: so the build
 * never uses another Node's headers from a `nodedir` in ~/.npmrc. Undefined lets node-gyp decide.
 */
function ownHeaders() {
  const candidates = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))];
  return candidates.find((candidate) => {
    if (!candidate) return false;
    try {
      const header = readFileSync(join(candidate, 'include/node/node_version.h'), 'utf8');
      const part = (name) => header.match(new RegExp(`#define ${name} (\\d+)`))?.[1];
      return `v${part('NODE_MAJOR_VERSION')}.${part('NODE_MINOR_VERSION')}.${part('NODE_PATCH_VERSION')}` === process.version;
    } catch {
      return false;
    }
  });
}

/** npm's bundled node-gyp, next to the npm that runs us (npm_execpath) or on PATH's npm. */
function findNpmNodeGyp() {
  const npmCli = process.env.npm_execpath;
  const candidates = [npmCli && join(dirname(dirname(npmCli)), 'node_modules/node-gyp/bin/node-gyp.js')];
  return candidates.find((candidate) => candidate && existsSync(candidate));
}

/** The alias's folder, found from the loader's own folder as Node finds it; undefined when not installed. */
function aliasDir(name) {
  try {
    return dirname(createRequire(loader).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}
