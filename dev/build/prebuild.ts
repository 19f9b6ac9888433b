// `npm run prebuild`: the prebuilt addons the package ships, from the sources in the
// repository, in prebuilds/<platform>-<arch>/ as node-gyp-build finds them: linux-arm64 with
// Debian's cross toolchain (g++-aarch64-linux-gnu), then linux-x64 natively, which leaves
// build/Release with this machine's own. N-API, so one file serves every Node from 20 on;
// stripped, so the package stays small. `npm pack` runs it (prepack). They link against this
// machine's glibc and libstdc++ (Debian 12: glibc 2.34 and GCC 12's symbols): where those are
// older, the install step builds from source instead.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildAddon, PACKAGE_ROOT } from '../../scripts/install/build-addon.mjs';

interface Target {
  arch: string;
  env: Record<string, string>;
  strip: string;
  /** The Debian package of its compiler. */
  apt: string;
}

/** Each target, the compilers that make it, and the strip for its files. */
const TARGETS: Target[] = [
  { arch: 'arm64', env: { CC: 'aarch64-linux-gnu-gcc', CXX: 'aarch64-linux-gnu-g++' }, strip: 'aarch64-linux-gnu-strip', apt: 'g++-aarch64-linux-gnu' },
  { arch: 'x64', env: {}, strip: 'strip', apt: 'g++' },
];

/** What node-gyp-build matches: any Node (napi), glibc, not musl. */
const PREBUILD_NAME = 'node.napi.glibc.node';

if (process.arch !== 'x64') {
  console.error(`prebuild: builds on linux-x64 only (this is ${process.platform}-${process.arch})`);
  process.exit(1);
}
const prebuilds = path.join(PACKAGE_ROOT, 'prebuilds');
rmSync(prebuilds, { recursive: true, force: true });
for (const target of TARGETS) {
  const failure = buildAddon({ arch: target.arch, env: target.env });
  if (failure !== null) {
    console.error(`prebuild: linux-${target.arch} failed: ${failure} (its compiler: apt-get install ${target.apt})`);
    process.exit(1);
  }
  const dir = path.join(prebuilds, `linux-${target.arch}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, PREBUILD_NAME);
  copyFileSync(path.join(PACKAGE_ROOT, 'build/Release/slowdisk_probe.node'), file);
  const stripped = spawnSync(target.strip, ['--strip-unneeded', file], { encoding: 'utf8' });
  if (stripped.status !== 0) {
    console.error(`prebuild: ${target.strip} ${file} failed: ${(stripped.stderr || stripped.error?.message || '').trim()}`);
    process.exit(1);
  }
  console.log(`prebuild: ${path.relative(PACKAGE_ROOT, file)}`);
}
