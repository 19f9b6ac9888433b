// Where the series are: DIR/host_*/YYYY-MM-DD.csv (one directory per host, one file per day),
// or DIR being one host's directory of day files.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { naturalCompare } from '../common/natural-compare.js';
import { fsPath, pathText } from '../common/path-text.js';
import { countBadFile, type ReadCounters } from './series-csv.js';

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

/** What the entry `name` of `dir` is; a symlink is what it leads to. */
async function kind(dir: string, name: string, entry: Dirent<Buffer>): Promise<'dir' | 'file' | 'other'> {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) {
    try {
      const target = await stat(fsPath(path.join(dir, name)));
      return target.isDirectory() ? 'dir' : target.isFile() ? 'file' : 'other';
    } catch {
      return 'other';
    }
  }
  return 'other';
}

/**
 * The entries of `dir`, read as bytes, so that a name with 0xff names that very file; a name
 * as slowdisk holds a path is `pathText(entry.name)` (path-text.ts).
 */
const entriesOf = (dir: string): Promise<Dirent<Buffer>[]> => readdir(fsPath(dir), { withFileTypes: true, encoding: 'buffer' });

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));

/**
 * The hosts under `dir`: each subdirectory holding `.csv` files is a host; when there is none
 * and `dir` itself holds `.csv` files, `dir` is the one host. A subdirectory that cannot be
 * listed is counted as a bad file. Throws a LayoutError when `dir` cannot be read or holds
 * no day file at all.
 */
export async function findHosts(dir: string, counters: ReadCounters): Promise<HostDir[]> {
  let entries: Dirent<Buffer>[];
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
    const name = pathText(entry.name);
    const what = await kind(dir, name, entry);
    if (what === 'file' && isCsv(name)) ownFiles.push(name);
    if (what !== 'dir' || name.startsWith('.')) continue;
    const hostDir = path.join(dir, name);
    let inner: Dirent<Buffer>[];
    try {
      inner = await entriesOf(hostDir);
    } catch (error) {
      countBadFile(counters, hostDir, `cannot list: ${reason(error)}`);
      continue;
    }
    const files: string[] = [];
    for (const file of inner) {
      const fileName = pathText(file.name);
      if (isCsv(fileName) && (await kind(hostDir, fileName, file)) === 'file') files.push(fileName);
    }
    if (files.length > 0) hosts.push({ host: name, dir: hostDir, files: files.sort(naturalCompare) });
  }
  if (hosts.length === 0 && ownFiles.length > 0) {
    hosts.push({ host: path.basename(path.resolve(dir)), dir, files: ownFiles.sort(naturalCompare) });
  }
  if (hosts.length === 0) {
    throw new LayoutError(`no day files under ${dir}: expected ${path.join(dir, 'host_*', 'YYYY-MM-DD.csv')} or ${path.join(dir, 'YYYY-MM-DD.csv')}`);
  }
  return hosts.sort((a, b) => naturalCompare(a.host, b.host));
}
