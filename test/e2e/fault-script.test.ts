// docs/fault-injection.md's fault-injection script, run as the page shows it, from the repository's
// root with slowdisk on PATH: on a loop disk of the kit it freezes the filesystem, waits
// for watch --until hung, and asserts on the exit code and the JSON itself.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const gate = requireRootFacilities(['root', 'loop', 'fsfreeze', 'jq']);
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-fault-script-'));

/** The first sh block under the page's "A fault-injection script" heading. */
function documentedScript(): string {
  const page = readFileSync(path.join(ROOT, 'docs/fault-injection.md'), 'utf8');
  const section = page.split(/^## /m).find((part) => part.startsWith('A fault-injection script'));
  const script = section && /^```sh\n([^]*?)^```$/m.exec(section)?.[1];
  if (!script) throw new Error('docs/fault-injection.md has no sh block under "A fault-injection script"');
  return script;
}

describe.skipIf(gate.skip)('the fault-injection script of docs/fault-injection.md', () => {
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it('passes as written on a loop disk frozen by the kit: exit 1 from watch --until hung, its hung event in the JSON', async () => {
    const disk = await makeTestDisk();
    const script = path.join(work, 'hang-test');
    writeFileSync(script, documentedScript());
    chmodSync(script, 0o755);
    // `slowdisk` on PATH, as installed.
    const bin = path.join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, path.join(bin, 'slowdisk'));
    const started = performance.now();
    const { stdout, stderr } = await promisify(execFile)(script, [disk.dir], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      timeout: 90_000,
    });
    expect(stderr).toBe('');
    expect(stdout).toBe(`froze ${disk.dir}: writes to it now block\nkv hung, exit 1\n`);
    // Ended by the event (5 s healthy, 5 s to hang), well before --duration.
    expect(performance.now() - started).toBeLessThan(40_000);
    // The trap thawed the disk: a write goes through.
    writeFileSync(path.join(disk.dir, 'after'), 'thawed');
  }, 120_000);
});
