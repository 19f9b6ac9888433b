// Each command's --help shows the output flags, and an example of each.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';

/** The lines of the help's Examples section. */
async function examples(command: string): Promise<string[]> {
  const result = await runInProcess([command, '--help']);
  expect(result.code).toBe(0);
  const section = result.stdout.split('\nExamples:\n')[1] ?? '';
  return section.split('\n\n')[0].split('\n');
}

describe('--help', () => {
  it('watch: --json, --textfile and --listen, each with an example', async () => {
    const lines = await examples('watch');
    for (const flag of ['--json', '--textfile /var/lib/prometheus/node-exporter', '--listen :9258']) {
      expect(lines.some((line) => line.includes(`slowdisk watch `) && line.includes(flag)), flag).toBe(true);
    }
  });

  it('check: --format nagios, --json and --textfile, each with an example', async () => {
    const lines = await examples('check');
    for (const flag of ['--format nagios', '--json', '--textfile']) expect(lines.some((line) => line.includes(flag)), flag).toBe(true);
    const help = (await runInProcess(['check', '--help'])).stdout;
    expect(help).toMatch(/--format <format> +the last line: human, or nagios .*\(choices:\s+"human",\s+"nagios",\s+default:\s+"human"\)/s);
  });

  it('replay: --json with an example', async () => {
    expect((await examples('replay')).some((line) => line.includes('--json'))).toBe(true);
  });
});
