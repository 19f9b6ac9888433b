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
});
