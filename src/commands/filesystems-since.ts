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

/** The state file: read and replaced in its directory by the output writer, named in messages by its path. */
interface StateFile {
  dir: string;
  name: string;
  path: string;
}

export function compareFilesystemsWithLastRun(session: ProbeSession, writer: OutputWriter, stateDir: string, store?: string): FilesystemComparison {
  const name = filesystemsStateName(store);
  const state: StateFile = { dir: stateDir, name, path: path.join(stateDir, name) };
  let told = false;
  const tell = (when: string) => {
    if (!told) writeStderrLine(`${state.path} was not read ${when}, its disk may hang: the paths' filesystems are not compared with the last run's`);
    told = true;
  };
  void compare(session, writer, state, () => tell(`within ${deadlineText()}`)).then(() => (told = true));
  return { untold: () => tell('before the run ended') };
}

async function compare(session: ProbeSession, writer: OutputWriter, state: StateFile, late: () => void): Promise<void> {
  const read = writer.readFile(state.dir, state.name);
  if ((await withinDeadline(read)) === 'late') return late();
  let text;
  try {
    text = await read;
  } catch (error) {
    // Nothing is read from or saved to a directory that cannot be trusted, nor one that cannot be read.
    writeStderrLine(`${state.path} cannot be read (${(error as Error).message}): the paths' filesystems are not compared with the last run's`);
    return;
  }
  let remembered;
  try {
    remembered = decodeRemembered(text);
  } catch (error) {
    writeStderrLine(`${state.path} cannot be used (${(error as Error).message}): the paths' filesystems are remembered afresh`);
    remembered = new Map();
  }
  for (const change of changesSince(remembered, session.statuses())) session.filesystemChangedSince(change);
  let current = remembering(remembered, session.statuses());
  let told = false;
  const save = () =>
    void writer.replaceFile(state.dir, state.name, encodeRemembered(current), 0o600).catch((error: Error) => {
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
