// The prober registry (/run/slowdisk) read-only or full: the runs say so in one line, and the
// bound it keeps still holds: three checks of a frozen disk leave one stuck prober, not three,
// and no empty entry. Each run sees the registry so in a mount namespace of its own, so that
// the machine's /run is left as it is.
import { afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { markProcesses, type ProcessMark } from '../helpers/marked-processes.js';
import { BIN, runCommand, waitFor, type CliResult } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

/** Runs `script` in a mount namespace of its own, a tmpfs mounted on /run/slowdisk there with `mountOptions`. */
function inNamespace(mountOptions: string, script: string, mark: ProcessMark): Promise<CliResult> {
  return runCommand(['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mkdir -p -m 700 /run/slowdisk && mount -t tmpfs -o ${mountOptions},mode=700 slowdisk-test /run/slowdisk && ${script}`, 'sh', process.execPath, BIN], mark.env);
}

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze', 'unshare']);

describe.skipIf(gate.skip)('a prober registry that cannot be used', () => {
  let disk: TestDisk | null = null;
  afterEach(async () => {
    await disk?.thaw();
    await removeAllTestDisks();
  }, 60_000);

  it.each([
    ['read-only', 'ro', /\(EROFS: open \/run\/slowdisk\/\.check\.[0-9a-f]{24}\.tmp\)/, 'true'],
    ['full', 'size=8k', /\(ENOSPC: write \/run\/slowdisk\/\.check\.[0-9a-f]{24}\.tmp\)/, 'dd if=/dev/zero of=/run/slowdisk/filler bs=4k count=8 2>/dev/null; true'],
  ])('%s: one line per run, and three checks of a frozen disk leave one stuck prober', async (_, options, why, fill) => {
    disk = await makeTestDisk();
    await disk.hang();
    // This test's runs alone: other files' runs come and go meanwhile.
    const mark = markProcesses();
    const check = `"$1" "$2" check --path a=${disk.dir} --duration 2s --allow-short --hang-after 1s; echo "exit $?"`;
    const result = await inNamespace(options, `${fill} && ${check} && ${check} && ${check} && echo "entries: $(ls -A /run/slowdisk)"`, mark);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/^slowdisk: the prober registry \/run\/slowdisk cannot be used /);
      expect(line).toMatch(why);
      expect(line).toMatch(/: stuck probers of earlier runs are found by their sockets instead$/);
    }
    const out = result.stdout.trimEnd().split('\n');
    // The second and third runs leave the disk to the first one's prober, stuck there (hung
    // from 1 s, as each run finds its inspection in flight since the first one's).
    expect(out.filter((line) => / by the stuck prober \(pid \d+\) of an earlier run /.test(line))).toHaveLength(2);
    expect(mark.pids()).toHaveLength(1);
    // No entry, empty or not: the filler alone, if any.
    expect(out.at(-1)).toBe(options === 'ro' ? 'entries:' : 'entries: filler');

    await disk.thaw();
    await waitFor(() => mark.pids().length === 0, 15_000, 'the stuck prober to exit after the thaw');
    disk = null;
  }, 90_000);
});
