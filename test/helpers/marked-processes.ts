// The processes of one test's runs, told apart from every other run on the machine (another
// test file's, side by side with this one) by a variable in their environment: the CLI, its
// prober and their children all inherit it, whoever they run as and in whatever namespace.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const VARIABLE = 'SLOWDISK_TEST_MARK';

export interface ProcessMark {
  /** To add to the environment of the runs to follow. */
  env: NodeJS.ProcessEnv;
  /** The live processes that carry the mark. */
  pids(): number[];
}

export function markProcesses(): ProcessMark {
  const token = randomBytes(8).toString('hex');
  const entry = `${VARIABLE}=${token}`;
  return {
    env: { [VARIABLE]: token },
    pids: () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((name) => {
          try {
            return readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry);
          } catch {
            // Gone meanwhile.
            return false;
          }
        })
        .map(Number),
  };
}
