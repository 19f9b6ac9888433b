// The manual page and the bash completion an operator installs: man renders the page, it
// lists every flag of every command (the registry's parameters and the others), and bash
// completes commands, flags and a flag's values from the same flags.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { buildProgram } from '../../src/cli/main.js';
import { ALL_PARAM_SPECS } from '../../src/cli/param-registry.js';
import { flagName } from '../../src/common/param-spec.js';
import { manPage } from '../../dev/docs/man-page.js';
import { bashCompletion } from '../../dev/docs/bash-completion.js';
import { DEFAULT_STATE_DIR } from '../../src/drives/drive-params.js';
import { REGISTRY_DIR } from '../../src/prober/prober-registry.js';
import { StatusServer } from '../../src/status/status-server.js';
import { STATUS_DIR } from '../../src/status/status-socket.js';

const dir = mkdtempSync(path.join(tmpdir(), 'slowdisk-man-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function written(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const gate = requireRootFacilities(['man']);

describe.skipIf(gate.skip)('the manual page slowdisk(1)', () => {
  let rendered: ReturnType<typeof spawnSync<string>>;
  beforeAll(() => {
    const page = written('slowdisk.1', manPage());
    rendered = spawnSync('man', ['--warnings', '-l', page], { env: { ...process.env, MANWIDTH: '80' }, encoding: 'utf8' });
  });

  it('renders with man, without a warning from the formatter', () => {
    expect(rendered.status).toBe(0);
    expect(rendered.stderr).toBe('');
    expect(rendered.stdout).toMatch(/^SLOWDISK\(1\) +User Commands/);
    expect(rendered.stdout).toContain('slowdisk - tells whether a storage node');
  });

  it("lists every command and every flag, each registry parameter's with its default", () => {
    const text = rendered.stdout;
    const program = buildProgram();
    for (const command of program.commands) {
      expect(text).toContain(`slowdisk ${command.name()} [options]`);
      for (const option of command.options) expect(text, `${command.name()} ${option.long}`).toContain(option.long!);
    }
    for (const spec of ALL_PARAM_SPECS) expect(text).toContain(flagName(spec));
    expect(text).toContain('--interval <duration>\n              one inspection per disk per tick (1ms to 1h) (default: 100ms)');
    expect(text).toMatch(/EXIT STATUS\n +watch\n +0 +OK/);
  });

  it('names under FILES what slowdisk makes on the host: the probe files, the status socket, the registry, the state directory', () => {
    const files = rendered.stdout.slice(rendered.stdout.indexOf('\nFILES\n'), rendered.stdout.indexOf('\nSEE ALSO\n'));
    expect(files).toMatch(/\n {7}DIR\/\.slowdisk-probe-PID-HEX\n/);
    expect(files).toContain(`\n       ${STATUS_DIR}/STORE.sock\n`);
    expect(files).toContain(`\n       ${REGISTRY_DIR}/\n`);
    expect(files).toContain(`\n       ${DEFAULT_STATE_DIR}/\n`);
  });
});

describe('bash completion', () => {
  const script = written('slowdisk.bash', bashCompletion());

  /** What bash offers after `words`, the last one being completed. */
  function complete(...words: string[]): string[] {
    const out = execFileSync('bash', ['-c', `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _slowdisk; printf '%s\\n' "\${COMPREPLY[@]}"`, script, 'slowdisk', ...words], {
      cwd: dir,
      encoding: 'utf8',
    });
    return out.split('\n').filter(Boolean);
  }

  it('completes the commands, their flags, and the values a flag takes', () => {
    expect(complete('ch')).toEqual(['check']);
    expect(complete('check', '--dur')).toEqual(['--duration']);
    expect(complete('watch', '--sync', '')).toEqual(['fdatasync', 'fsync']);
    expect(complete('check', '--format', 'n')).toEqual(['nagios']);
    expect(complete('watch', '--critical-on', '')).toEqual(['evict', 'any']);
    expect(complete('replay', '--stat-th')).toEqual(['--stat-threshold']);
  });

  it('completes status --store with the stores served on this host', async () => {
    const store = `completion${process.pid}`;
    const server = await StatusServer.start(store, () => {
      throw new Error('not asked');
    });
    try {
      expect(complete('status', '--store', '')).toContain(store);
      expect(complete('status', '--store', store.slice(0, -1))).toContain(store);
    } finally {
      await server.close();
    }
    expect(complete('status', '--store', store.slice(0, -1))).not.toContain(store);
  });

  it('completes directories where a flag takes one, and nothing where it takes a number', () => {
    expect(complete('watch', '--kv', 'slowdisk.b')).toEqual([]);
    expect(complete('watch', '--tikv-config', 'slowdisk.b')).toEqual(['slowdisk.bash']);
    expect(complete('watch', '--interval', '')).toEqual([]);
  });
});
