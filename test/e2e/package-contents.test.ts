// What the package carries for an operator: every page its README links, and a package.json
// whose only script is the install step, so that `npm install -g` warns of no development
// script the installed package never runs.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'slowdisk-contents-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The files `npm pack` puts in the tarball of `dir`, relative to the package. */
async function packedFiles(dir: string): Promise<{ files: string[] }> {
  const { stdout } = await execFileAsync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { files: { path: string }[] }[];
  return { files: packed!.files.map((file) => file.path) };
}

describe('the package', () => {
  it('carries every file its README links', async () => {
    const { files } = await packedFiles(ROOT);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((link) => !/^[a-z]+:/.test(link));
    expect(links.length).toBeGreaterThan(20);
    expect([...new Set(links)].filter((link) => !files.includes(path.normalize(link)))).toEqual([]);
  });

  it('ships a package.json whose only script is the install step; the tree keeps its own', async () => {
    // The manifest step of `npm pack` (prepack's last, postpack), compiled (npm run build:js)
    // and run with what it imports on a copy of the tree's package.json: what the tarball gets,
    // and what the tree has again after.
    const copy = path.join(work, 'source');
    for (const file of ['dist-dev/dev/build/packed-manifest.js', 'dist-dev/dev/repo-root.js', 'dist-dev/src/common/package-root.js']) {
      mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      cpSync(path.join(ROOT, file), path.join(copy, file));
    }
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepack).toMatch(/ && node dist-dev\/dev\/build\/packed-manifest\.js strip$/);
    expect(manifest.scripts.postpack).toBe('node dist-dev/dev/build/packed-manifest.js restore');
    // The copy packs with the manifest step alone: its other steps build what this test does not need.
    const steps = { ...manifest, scripts: { ...manifest.scripts, prepack: 'node dist-dev/dev/build/packed-manifest.js strip' }, files: ['dist-dev'] };
    const original = `${JSON.stringify(steps, null, 2)}\n`;
    writeFileSync(path.join(copy, 'package.json'), original);
    const { stdout } = await execFileAsync('npm', ['pack', '--json', '--pack-destination', work], { cwd: copy });
    const tarball = path.join(work, (JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[])[0]!.filename);
    const { stdout: packed } = await execFileAsync('tar', ['-xzOf', tarball, 'package/package.json']);
    const shipped = JSON.parse(packed) as { scripts: Record<string, string>; imports?: unknown };
    expect(Object.keys(shipped.scripts)).toEqual(['install']);
    expect(shipped.imports).toBeUndefined();
    expect(readFileSync(path.join(copy, 'package.json'), 'utf8')).toBe(original);
  });
});
