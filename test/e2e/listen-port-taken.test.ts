// A port that another user binds before the service starts: the service probes and answers
// `status` all the same, says on stderr, in status's answer and in the textfile that /metrics
// is not served, and binds the port once it is free.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-listen-taken-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
// status needs root, and the squatter runs as nobody.
const gate = requireRootFacilities(['root']);

/** `nobody` listening on the port first, answering every connection with metrics of its own. */
function squat(port: number): Promise<ChildProcess> {
  const script = `require('net').createServer((s) => s.end('HTTP/1.1 200 OK\\r\\nContent-Length: 21\\r\\n\\r\\nslowdisk_store_score 1')).listen(${port}, '127.0.0.1', () => console.log('up'))`;
  const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script], { cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the squatter exited with ${code}`)));
  });
}

function listenUp(textfile: string): number | null {
  const match = /^slowdisk_listen_up\{[^}]*\} (\d)$/m.exec(readFileSync(textfile, 'utf8'));
  return match ? Number(match[1]) : null;
}

describe.skipIf(gate.skip)('watch --listen on a port another user bound first', () => {
  it('probes and answers status meanwhile, tells why /metrics is not served, and binds once the port is free', async () => {
    const port = await freePort();
    const store = `taken${process.pid}`;
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const textfiles = mkdtempSync(path.join(work, 'textfile-'));
    const textfile = path.join(textfiles, `slowdisk-store-${store}.prom`);
    const squatter = await squat(port);
    let cli: RunningCli | null = null;
    try {
      cli = startCli(['watch', '--raft', dir, '--keep-going', '--round-ticks', '5', '--store', store, '--listen', `127.0.0.1:${port}`, '--textfile', textfiles]);
      const refused = `cannot listen on 127.0.0.1:${port}: EADDRINUSE: address already in use`;
      await waitFor(() => /tick 10 /.test(cli!.stdout()), 15_000, 'two rounds probed');
      expect(cli.child.exitCode).toBeNull();
      expect(cli.stderr()).toBe(`slowdisk: ${refused}: /metrics is not served, the run goes on; tried again every 10 s\n`);

      const status = await runCli(['status', '--store', store]);
      expect(status.code).toBe(0);
      expect(status.stdout.split('\n').slice(1)).toEqual([`the service: ${refused}`, '']);
      const json = await runCli(['status', '--store', store, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'summary', exit_code: 0, problems: [refused] });
      await waitFor(() => listenUp(textfile) === 0, 5000, 'slowdisk_listen_up 0 in the textfile');

      squatter.kill('SIGTERM');
      await new Promise((resolve) => squatter.once('exit', resolve));
      // Tried again within 10 s of the squatter's leaving.
      await waitFor(async () => /slowdisk_build_info/.test(await (await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null))?.text().catch(() => '') ?? ''), 15_000, 'slowdisk serving the port');
      expect(cli.stderr()).toBe(`slowdisk: ${refused}: /metrics is not served, the run goes on; tried again every 10 s\nslowdisk: listening on 127.0.0.1:${port} now: /metrics is served\n`);
      await waitFor(() => listenUp(textfile) === 1, 5000, 'slowdisk_listen_up 1 in the textfile');
      const served = await runCli(['status', '--store', store]);
      expect(served.code).toBe(0);
      expect(served.stdout.split('\n')).toHaveLength(2);
    } finally {
      squatter.kill('SIGKILL');
      cli?.child.kill('SIGTERM');
    }
    expect((await cli.done).code).toBe(143);
  }, 60_000);
});
