// The shipped Prometheus rules load, and their unit tests pass under promtool.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';

const execFileAsync = promisify(execFile);
const rulesDir = fileURLToPath(new URL('../../contrib/prometheus/', import.meta.url));

/** promtool's output and exit status, failing or not. */
async function promtool(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync('promtool', args, { cwd: rulesDir });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const gate = requireRootFacilities(['promtool']);

describe.skipIf(gate.skip)('contrib/prometheus/slowdisk-rules.yml', () => {
  it('is valid: every recording rule and alert parses', async () => {
    const result = await promtool(['check', 'rules', 'slowdisk-rules.yml']);
    expect(result.output).toMatch(/SUCCESS: 19 rules found/);
    expect(result.code).toBe(0);
  });

  it('passes its promtool unit tests: thresholds, a failing disk, staleness, the fleet outlier, a stalled block device, PD\'s one-slow-store eviction held for its recovery duration, a shared cause, a store at the threshold only through a busy disk, and a store and each of its disks scraped through the textfile and /metrics at once counted once', async () => {
    const result = await promtool(['test', 'rules', 'slowdisk-rules.test.yml']);
    expect(result.output).toMatch(/SUCCESS/);
    expect(result.code).toBe(0);
  });
});
