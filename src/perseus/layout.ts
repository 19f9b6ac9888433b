// Where the series are: DIR/host_*/YYYY-MM-DD.csv (one directory per host, one file per day),
// or DIR being one host's directory of day files.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { naturalCompare } from '../common/natural-compare.js';
import { fsPath, pathText } from '../common/path-text.js';
import { countBadFile, type ReadCounters } from './csv.js';

export interface HostDir {
  host: string;
  dir: string;
  /** The day files, by name (the day is the name without `.csv`). */
  files: string[];
}

export class LayoutError extends Error {}

const isCsv = (name: string) => name.toLowerCase().endsWith('.csv') && !name.startsWith('.');

/** The day a file holds: its name without `.csv`. */
export const dayOfFile = (file: string): string => path.basename(file).replace(/\.csv$/i, '');

async function kind(dir: string, entry: Entry): Promise<'dir' | 'file' | 'other'> {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) {
    try {
      const target = await stat(fsPath(path.join(dir, entry.name)));
      return target.isDirectory() ? 'dir' : target.isFile() ? 'file' : 'other';
    } catch {
      return 'other';
    }
  }
  return 'other';
}

/** A directory entry, its name as slowdisk holds a path (path-text.ts): a byte that is not UTF-8 kept as it is. */
interface Entry {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

/** The entries of `dir`, read as bytes, so that a name with 0xff names that very file. */
async function entriesOf(dir: string): Promise<Entry[]> {
  const entries: Dirent<Buffer>[] = await readdir(fsPath(dir), { withFileTypes: true, encoding: 'buffer' });
  return entries.map((entry) => ({
    name: pathText(entry.name),
    isDirectory: () => entry.isDirectory(),
    isFile: () => entry.isFile(),
    isSymbolicLink: () => entry.isSymbolicLink(),
  }));
}

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));

/**
 * The hosts under `dir`: each subdirectory holding `.csv` files is a host; when there is none
 * and `dir` itself holds `.csv` files, `dir` is the one host. A subdirectory that cannot be
 * listed is counted as a bad file. Throws a LayoutError when `dir` cannot be read or holds
 * no day file at all.
 */
export async function findHosts(dir: string, counters: ReadCounters): Promise<HostDir[]> {
  let entries: Entry[];
  try {
    entries = await entriesOf(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LayoutError(`${dir}: no such directory`);
    if (code === 'ENOTDIR') throw new LayoutError(`${dir}: not a directory`);
    throw new LayoutError(`cannot read ${dir}: ${reason(error)}`);
  }
  const hosts: HostDir[] = [];
  const ownFiles: string[] = [];
  for (const entry of entries) {
    const what = await kind(dir, entry);
    if (what === 'file' && isCsv(entry.name)) ownFiles.push(entry.name);
    if (what !== 'dir' || entry.name.startsWith('.')) continue;
    const hostDir = path.join(dir, entry.name);
    let inner: Entry[];
    try {
      inner = await entriesOf(hostDir);
    } catch (error) {
      countBadFile(counters, hostDir, `cannot list: ${reason(error)}`);
      continue;
    }
    const files: string[] = [];
    for (const file of inner) if (isCsv(file.name) && (await kind(hostDir, file)) === 'file') files.push(file.name);
    if (files.length > 0) hosts.push({ host: entry.name, dir: hostDir, files: files.sort(naturalCompare) });
  }
  if (hosts.length === 0 && ownFiles.length > 0) {
    hosts.push({ host: path.basename(path.resolve(dir)), dir, files: ownFiles.sort(naturalCompare) });
  }
  if (hosts.length === 0) {
    throw new LayoutError(`no day files under ${dir}: expected ${path.join(dir, 'host_*', 'YYYY-MM-DD.csv')} or ${path.join(dir, 'YYYY-MM-DD.csv')}`);
  }
  return hosts.sort((a, b) => naturalCompare(a.host, b.host));
}
