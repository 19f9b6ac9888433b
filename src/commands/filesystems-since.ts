// --state-dir with probed paths: each path's filesystem compared with the one the last run
// with that directory found, and remembered for the next (at start, and whenever the layout
// changes). The file is read and replaced by the output writer, within its deadline: a state
// directory on a hung disk costs the comparison, never the run.
import path from 'node:path';
import { changesSince, decodeRemembered, encodeRemembered, filesystemsStateName, remembering } from '../layout/filesystem-memory.js';
import type { ProbeSession } from '../live/probe-session.js';
import type { OutputWriter } from '../output/output-writer.js';
import { deadlineText, withinDeadline } from '../output/deadline.js';
import { writeStderrLine } from '../common/visible-text.js';

/** The comparison under way: `untold()` says, at the run's end, that it could not be made in time. */
export interface FilesystemComparison {
  untold(): void;
}

export function compareFilesystemsWithLastRun(session: ProbeSession, writer: OutputWriter, stateDir: string, store?: string): FilesystemComparison {
  const file = path.join(stateDir, filesystemsStateName(store));
  let told = false;
  const tell = (when: string) => {
    if (!told) writeStderrLine(`${file} was not read ${when}, its disk may hang: the paths' filesystems are not compared with the last run's`);
    told = true;
  };
  void compare(session, writer, stateDir, store, () => tell(`within ${deadlineText()}`)).then(() => (told = true));
  return { untold: () => tell('before the run ended') };
}

async function compare(session: ProbeSession, writer: OutputWriter, stateDir: string, store: string | undefined, late: () => void): Promise<void> {
  const name = filesystemsStateName(store);
  const file = path.join(stateDir, name);
  const read = writer.readFile(stateDir, name);
  if ((await withinDeadline(read)) === 'late') return late();
  let remembered;
  try {
    remembered = decodeRemembered(await read);
  } catch (error) {
    writeStderrLine(`${file} cannot be used (${(error as Error).message}): the paths' filesystems are remembered afresh`);
    remembered = new Map();
  }
  for (const change of changesSince(remembered, session.statuses())) session.filesystemChangedSince(change);
  let current = remembering(remembered, session.statuses());
  let told = false;
  const save = () =>
    void writer.replaceFile(stateDir, name, encodeRemembered(current), 0o600).catch((error: Error) => {
      if (!told) writeStderrLine(`cannot save the paths' filesystems: ${error.message}`);
      told = true;
    });
  save();
  session.on('event', (event) => {
    if (event.kind !== 'layout') return;
    current = remembering(current, event.disks);
    save();
  });
}
