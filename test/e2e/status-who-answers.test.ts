// `slowdisk status` as an operator meets it: the store whose service answers is named in every
// format; a plain `watch`, which serves no status, and a service that ended are told apart from
// a store that answers; and a user who is not root is told that status needs root.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';
import { socketPath } from '../../src/status/status-socket.js';

const gate = requireRootFacilities(['root', 'loop']);
// Store names of this run only: other runs on the machine may serve stores of their own.
const tag = `who${process.pid}`;
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-who-answers-'));
const ONLY_WATCH = 'only `slowdisk watch --store NAME` answers status';

const running: RunningCli[] = [];

function start(args: string[]): RunningCli {
  const cli = startCli(args);
  running.push(cli);
  return cli;
}

describe.skipIf(gate.skip)('who answers slowdisk status', () => {
  afterAll(async () => {
    for (const cli of running) if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
    await Promise.all(running.map((cli) => cli.done));
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it("names the store in the human, Nagios and JSON answers; once its service ends, says so and what answers", async () => {
    const store = `${tag}-demo`;
    const disk = await makeTestDisk();
    const service = start(['watch', '--store', store, '--kv', disk.dir, '--state-dir', mkdtempSync(path.join(work, 'state-'))]);
    await waitFor(() => existsSync(socketPath(store)), 15_000, `the status socket of ${store}`);

    const human = await runCli(['status', '--store', store]);
    expect(human.stdout).toMatch(new RegExp(`^OK: store '${store}' score [\\d.]+ after [\\d.]+s \\(`));
    const nagios = await runCli(['status', '--store', store, '--format', 'nagios']);
    expect(nagios.stdout).toMatch(new RegExp(`^SLOWDISK OK - store '${store}' score \\d+ `));
    const json = await runCli(['status', '--store', store, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: 'summary', status: 'OK', store });

    service.child.kill('SIGTERM');
    await service.done;
    const gone = await runCli(['status', '--store', store]);
    expect(gone.code).toBe(3);
    expect(gone.stdout).toMatch(new RegExp(`^UNKNOWN: slowdisk is not running for the store '${store}' \\(${ONLY_WATCH}; (no store is served here|the stores served here: [^)]+)\\)\\n$`));
    expect(gone.stdout).not.toContain(`${store},`);
  });

  it('a plain watch serves no status: asked for a store, status says that only watch --store answers', async () => {
    const disk = await makeTestDisk();
    const plain = start(['watch', '--kv', disk.dir]);
    await waitFor(() => / kv /.test(plain.stdout()), 15_000, 'the plain watch probing');
    const asked = await runCli(['status', '--store', `${tag}-plain`, '--format', 'nagios']);
    expect(asked.code).toBe(3);
    expect(asked.stdout).toContain(`SLOWDISK UNKNOWN - slowdisk is not running for the store '${tag}-plain' (${ONLY_WATCH}; `);
  });

  it('as a user who is not root: "status needs root", exit 3, in each format', async () => {
    const nobody = { user: '65534', group: '65534' };
    const human = await runCli(['status'], { as: nobody });
    expect(human).toMatchObject({ code: 3, stdout: 'UNKNOWN: status needs root: the service answers root only (sudo slowdisk status)\n' });
    expect(human.stderr).toBe('slowdisk: status needs root: the service answers root only (sudo slowdisk status)\n');
    const nagios = await runCli(['status', '--store', `${tag}-any`, '--format', 'nagios'], { as: nobody });
    expect(nagios).toMatchObject({ code: 3, stdout: 'SLOWDISK UNKNOWN - status needs root: the service answers root only (sudo slowdisk status)\n' });
    expect(nagios.stdout + nagios.stderr).not.toMatch(/belongs to uid|refusing/);
  });
});
