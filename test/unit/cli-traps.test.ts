// What a new user runs into first: no command at all, a duration without a unit, the exit
// codes and ranges in help, and the cron line check's help gives to copy.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { runCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-traps-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Each flag's entry in a command's help, by flag name, its wrapped lines joined. */
function entries(help: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const block of help.split(/\n(?=\S|  -)/)) {
    const flag = /^ {2}(--[a-z-]+)/.exec(block);
    if (flag) found.set(flag[1]!, block.replace(/\s+/g, ' '));
  }
  return found;
}

/** The "Exit codes:" block of a command's help. */
const exitCodes = (help: string) => help.slice(help.indexOf('Exit codes:'));

describe('no traps', () => {
  // The bin itself: what a shell sees of its exit codes and its two streams.
  it('no arguments: the usage on stderr and exit 3; --help: the usage on stdout and exit 0', async () => {
    const bare = await runCli([]);
    expect(bare.code).toBe(3);
    expect(bare.stderr).toMatch(/^Usage: slowdisk \[options\] \[command\]\n/);
    expect(bare.stderr).toMatch(/^ {2}watch \[options\]/m);
    expect(bare.stderr).not.toMatch(/outputHelp/);
    expect(bare.stdout).toBe('');
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: slowdisk \[options\] \[command\]\n/);
  });

  it.each([
    [['check', '--duration', '5'], '--duration', '5s'],
    [['watch', '--interval', '100'], '--interval', '100s'],
    [['replay', '-', '--min-ttr', '2.5'], '--min-ttr', '2.5s'],
  ])('%j: a duration without a unit is refused, one line asking whether the unit was s', async (args, flag, meant) => {
    const result = await runInProcess(args, { cwd: work });
    expect(result.code).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: .*${flag} <duration>.*did you mean ${meant.replace('.', '\\.')}\\?`));
    expect(result.stdout).toBe('');
  });

  it("each command's help lists its own exit codes only", async () => {
    const [watch, check, replay] = await Promise.all([runInProcess(['watch', '--help']), runInProcess(['check', '--help']), runInProcess(['replay', '--help'])]);
    expect(exitCodes(watch.stdout)).toMatch(/^ {2}124 +--duration ran out before any of the --until events came$/m);
    expect(exitCodes(watch.stdout)).toMatch(/watch ends there, unless --keep-going/);
    expect(exitCodes(watch.stdout)).not.toMatch(/completed no inspection/);
    expect(exitCodes(check.stdout)).toMatch(/completed no inspection at all/);
    expect(exitCodes(check.stdout)).not.toMatch(/124|--until|trace/);
    // replay probes nothing and judges no drive.
    expect(exitCodes(replay.stdout)).toMatch(/a trace that cannot be read/);
    expect(exitCodes(replay.stdout)).not.toMatch(/probe files|probed at start|--all-devices|drives/);
  });

  it('every numeric flag shows its range', async () => {
    const { ALL_PARAM_SPECS } = await import('../../src/cli/param-registry.js');
    const { flagName, rangeText } = await import('../../src/common/param-spec.js');
    const helps = await Promise.all(['watch', 'check', 'replay', 'analyze'].map((command) => runInProcess([command, '--help'])));
    const shown = helps.map((help) => entries(help.stdout));
    const numeric = ALL_PARAM_SPECS.filter((spec) => spec.kind !== 'choice' && spec.kind !== 'boolean');
    for (const spec of numeric) {
      const found = shown.map((each) => each.get(flagName(spec))).filter((entry) => entry !== undefined);
      expect(found.length, flagName(spec)).toBeGreaterThan(0);
      for (const entry of found) expect(entry, flagName(spec)).toContain(`(${rangeText(spec)})`);
    }
    expect(shown[0]!.get('--warn-probability')).toContain('(above 0, below 1)');
    expect(shown[2]!.get('--ticks')).toContain('(1 or more)');
  });

  it("check's cron lines are crontab lines that work: a full path, mail only for what is not OK", async () => {
    const help = (await runInProcess(['check', '--help'])).stdout;
    const cron = help.split('\n').filter((line) => /^ {2}\*\/5 /.test(line));
    expect(cron.length).toBeGreaterThan(0);
    // A stand-in for the installed slowdisk: prints a line, exits as told.
    const stand = path.join(work, 'slowdisk');
    writeFileSync(stand, '#!/bin/sh\necho "check says $EXIT"\nexit "$EXIT"\n');
    chmodSync(stand, 0o755);
    for (const line of cron) {
      // /etc/cron.d: five time fields, the user, then the command for /bin/sh, with no % (cron's newline).
      const fields = /^ {2}(\S+ \S+ \S+ \S+ \S+) (\S+) (.*?)(?: {3}# .*)?$/.exec(line);
      expect(fields, line).not.toBeNull();
      const [, , user, command] = fields!;
      expect(user).toBe('root');
      expect(command).not.toContain('%');
      // cron's PATH is /usr/bin:/bin: slowdisk by its full path.
      expect(command).toMatch(/(^|\$\()\/usr\/bin\/slowdisk /);
      expect(command).not.toMatch(/(^|[\s(])slowdisk /);
      const run = (code: number) =>
        execFileSync('/bin/sh', ['-c', command!.replaceAll('/usr/bin/slowdisk', stand)], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', EXIT: String(code) }, stdio: ['ignore', 'pipe', 'pipe'] });
      // Cron mails whatever the line prints: nothing for OK, the check's line otherwise.
      expect(run(0), line).toBe('');
      if (!command!.includes('>/dev/null')) expect(run(1), line).toBe('check says 1\n');
    }
  });
});
