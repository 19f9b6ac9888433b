// The operators' labels of fail-slow drives: `cluster,host_name,workload,disk_id` (a trailing
// comma, quotes and blank lines allowed; columns found by name).
import { readFile } from 'node:fs/promises';

export interface SlowDriveLabel {
  cluster: string;
  host: string;
  disk: string;
  workload: string;
}

export interface Labels {
  drives: SlowDriveLabel[];
  /** `host/disk` of every labelled drive. */
  keys: Set<string>;
  /** Lines that could not be read (too few fields, no host or disk). */
  badLines: number;
}

export const labelKey = (host: string, disk: string): string => `${host}/${disk}`;

const unquote = (field: string): string => field.trim().replace(/^"(.*)"$/, '$1').trim();

export function parseLabels(text: string): Labels {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0) throw new Error('the labels file is empty');
  const names = lines[0].split(',').map((name) => unquote(name).toLowerCase());
  const column = (...candidates: string[]) => names.findIndex((name) => candidates.includes(name));
  const host = column('host_name', 'host');
  const disk = column('disk_id', 'disk', 'serialno');
  const cluster = column('cluster');
  const workload = column('workload');
  if (host < 0 || disk < 0) throw new Error(`the labels file has no host_name and disk_id columns (header '${lines[0]}')`);
  const drives: SlowDriveLabel[] = [];
  let badLines = 0;
  for (const line of lines.slice(1)) {
    const fields = line.split(',').map(unquote);
    const at = (index: number) => (index >= 0 && index < fields.length ? fields[index] : '');
    if (at(host) === '' || at(disk) === '') {
      badLines += 1;
      continue;
    }
    drives.push({ cluster: at(cluster), host: at(host), disk: at(disk), workload: at(workload) });
  }
  return { drives, keys: new Set(drives.map((drive) => labelKey(drive.host, drive.disk))), badLines };
}

export async function readLabels(file: string): Promise<Labels> {
  return parseLabels(await readFile(file, 'utf8'));
}
