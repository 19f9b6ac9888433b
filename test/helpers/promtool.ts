// promtool's verdict on metrics text, for the tests of /metrics and the textfile.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** What `promtool check metrics` says of `text`: empty when it finds nothing wrong. */
export async function promtoolCheckMetrics(text: string): Promise<string> {
  const child = execFileAsync('promtool', ['check', 'metrics']);
  child.child.stdin!.end(text);
  const { stdout, stderr } = await child;
  return stdout + stderr;
}
