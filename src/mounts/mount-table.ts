import { readFileSync } from 'node:fs';
import { pathText } from '../common/path-text.js';

/** One line of /proc/<pid>/mountinfo (see proc(5)), with paths unescaped. */
export interface MountEntry {
  mountId: number;
  parentId: number;
  major: number;
  minor: number;
  /** The directory of the filesystem that is mounted: not "/" for a bind mount of a subtree. */
  root: string;
  mountPoint: string;
  /** Per-mount options, such as "rw,relatime". */
  options: string;
  fsType: string;
  source: string;
  /** Per-superblock options, shared by every mount of the filesystem. */
  superOptions: string;
}

// The kernel writes space, tab, newline and backslash in paths as \ooo; one
// left-to-right pass keeps an escaped backslash from starting another escape.
function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function parseId(text: string, what: string, lineNumber: number): number {
  if (!/^\d+$/.test(text)) {
    throw new Error(`mountinfo line ${lineNumber}: ${what} is not a number: '${text}'`);
  }
  return Number(text);
}

function parseLine(line: string, lineNumber: number): MountEntry {
  // Fields are split on single spaces, not runs of them: the kernel writes an
  // empty source as an empty field.
  const fields = line.split(' ');
  const separator = fields.indexOf('-', 6);
  if (separator === -1 || fields.length - separator - 1 !== 3) {
    throw new Error(
      `mountinfo line ${lineNumber}: expected 6 fields, optional fields, '-' and 3 fields: '${line}'`,
    );
  }
  const [mountId, parentId, device, root, mountPoint, options] = fields;
  const [fsType, source, superOptions] = fields.slice(separator + 1);
  const deviceMatch = /^(\d+):(\d+)$/.exec(device);
  if (!deviceMatch) {
    throw new Error(`mountinfo line ${lineNumber}: device is not MAJ:MIN: '${device}'`);
  }
  return {
    mountId: parseId(mountId, 'mount ID', lineNumber),
    parentId: parseId(parentId, 'parent ID', lineNumber),
    major: Number(deviceMatch[1]),
    minor: Number(deviceMatch[2]),
    root: unescapeOctal(root),
    mountPoint: unescapeOctal(mountPoint),
    options,
    fsType,
    source: unescapeOctal(source),
    superOptions,
  };
}

/** Parses mountinfo text; throws an Error naming the line number of a malformed line. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  text.split('\n').forEach((line, index) => {
    if (line !== '') entries.push(parseLine(line, index + 1));
  });
  return entries;
}

/** The mounts of one mount namespace, in the order the kernel lists them. */
export class MountTable {
  readonly entries: readonly MountEntry[];
  private readonly byMountId: ReadonlyMap<number, MountEntry>;

  /**
   * Reads the table with readFileSync: procfs answers from memory, never from a disk under test.
   * A mount point named with a byte that is not UTF-8 is held as probed paths are (path-text.ts).
   */
  static read(file = '/proc/self/mountinfo'): MountTable {
    const bytes = readFileSync(file);
    const text = bytes.toString('utf8');
    return new MountTable(parseMountInfo(text.includes('\ufffd') ? pathText(bytes) : text));
  }

  constructor(entries: MountEntry[]) {
    this.entries = [...entries];
    this.byMountId = new Map(entries.map((entry) => [entry.mountId, entry]));
  }

  byId(mountId: number): MountEntry | undefined {
    return this.byMountId.get(mountId);
  }

  /**
   * The mount that paths under mountPoint resolve to when several are stacked
   * there. A mount stacked on another has that one as its parent, so the top
   * is the one no other mount at the same point is stacked on; the last listed
   * settles the unusual rest (the kernel lists mounts in the order they were made).
   */
  topmostAt(mountPoint: string): MountEntry | undefined {
    const stacked = this.entries.filter((entry) => entry.mountPoint === mountPoint);
    const covered = new Set(stacked.map((entry) => entry.parentId));
    return stacked.reverse().find((entry) => !covered.has(entry.mountId));
  }
}

/** The device as "MAJ:MIN", the form /sys/dev/block and the blkio cgroup use. */
export function deviceOf(entry: MountEntry): string {
  return `${entry.major}:${entry.minor}`;
}
