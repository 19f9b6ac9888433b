// The one-line answers an operator meets on a first try: a mistyped flag, JSON asked of
// --format, a package without its addon. Each is one line that says what to do.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli, runCommand } from '../helpers/run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'slowdisk-messages-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a mistyped flag', () => {
  it('is one line with its suggestion, on stderr and on the Nagios status line, with no "\\n" in it', async () => {
    const result = await runCli(['check', '--format', 'nagios', '--kv', work, '--duraton', '3s']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("slowdisk: unknown option '--duraton' (Did you mean --duration?)\n");
    expect(result.stdout).toBe("SLOWDISK UNKNOWN - unknown option '--duraton' (Did you mean --duration?)\n");
  });
});

describe('--format json', () => {
  it.each([['check', '--kv', work], ['status']])('%s: names --json', async (...args) => {
    const result = await runCli([...args, '--format', 'json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("slowdisk: option '--format <format>' argument 'json' is invalid. Allowed choices are human, nagios; for JSON, use --json.\n");
  });
});

describe('a package with no addon for this machine', () => {
  it('says how to build one, and not with `npm run build`, which builds none', async () => {
    // The package's JavaScript alone: no build/, no prebuilds/.
    const root = path.join(work, 'package');
    for (const entry of ['bin', 'dist', 'package.json']) cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const result = await runCommand([process.execPath, path.join(root, path.relative(ROOT, BIN)), 'check', '--kv', work, '--duration', '3s', '--allow-short']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: no native addon for linux-\w+ in \S+ or \S+: install slowdisk again \(npm rebuild -g slowdisk\), which builds one from source when no prebuilt one fits; in a clone, `node scripts\/install\/install\.mjs` builds one for this machine\n$/);
  });
});
