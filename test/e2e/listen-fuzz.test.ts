// Whoever can reach watch --listen's port must not be able to stop the monitoring: requests of
// every shape (request lines and headers made of random bytes, URL-breaking targets, bad
// framing) get an answer or a closed connection, bad ones 400, and the run goes on serving.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-listen-fuzz-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Sends `bytes` on a fresh loopback connection; resolves to what came back before the server closed it or 2 s passed. */
function exchange(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, 2000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is all a request gets: the connection may stay open (keep-alive).
      if (Buffer.concat(chunks).includes('\r\n\r\n')) setTimeout(done, 50);
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.end(bytes);
  });
}

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);

/** A seeded generator (mulberry32): the same requests on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TARGET_PARTS = ['/', '//', '[', ']', '%', '%zz', '%00', '?', '#', '@', ':', '..', '\\', 'metrics', 'http:', '//[::1', 'a b', '\t', '\u00ff', '*', ':99999'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE', 'PATCH', 'GE\x00T', 'G', ''];
const HEADER_LINES = [
  'Host: [',
  'Host: ',
  'Host: a:b:c',
  'Content-Length: -1',
  'Content-Length: 1',
  'Content-Length: 99999999999999999999',
  'Content-Length: 1\r\nContent-Length: 2',
  'Transfer-Encoding: chunked',
  'Transfer-Encoding: chunked, identity',
  'Connection: upgrade\r\nUpgrade: websocket',
  'Expect: 100-continue',
  ': no name',
  'No-Colon',
  'X: \x00\x01\x7f',
  ' folded: line',
  `X-Long: ${'a'.repeat(20_000)}`,
];

function fuzzed(next: () => number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const shape = next();
  if (shape < 0.15) {
    // Raw bytes, a request line or not.
    return Buffer.from(Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
  }
  const target = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(TARGET_PARTS)).join('');
  const version = pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', 'http/1.1', '']);
  const headers = Array.from({ length: Math.floor(next() * 4) }, () => pick(HEADER_LINES));
  const body = next() < 0.3 ? '0\r\n\r\n' + 'x'.repeat(Math.floor(next() * 10)) : '';
  return Buffer.from(`${pick(METHODS)} ${target} ${version}\r\n${headers.join('\r\n')}${headers.length ? '\r\n' : ''}\r\n${body}`, 'latin1');
}

describe('watch --listen under hostile requests', () => {
  it('answers bad requests 400 and keeps serving /metrics whatever it is sent', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const cli: RunningCli = startCli(['watch', '--raft', dir, '--keep-going', '--listen', `127.0.0.1:${port}`]);
    try {
      await waitFor(async () => status(await exchange(port, Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'))) === 200, 15_000, 'the port serving');
      // The request of the report: a target no URL can be made of.
      expect(status(await exchange(port, Buffer.from('GET //[ HTTP/1.1\r\nHost: x\r\n\r\n')))).toBe(400);
      expect(status(await exchange(port, Buffer.from('GET //[ HTTP/1.1\r\n\r\n')))).toBe(400);
      const next = random(27);
      const seen = new Set<number>();
      for (let i = 0; i < 400; i += 1) {
        const answers = await Promise.all([fuzzed(next), fuzzed(next), fuzzed(next), fuzzed(next)].map((bytes) => exchange(port, bytes)));
        for (const answer of answers) seen.add(status(answer));
        expect(cli.child.exitCode, `the run ended after request batch ${i}: ${cli.stderr()}`).toBeNull();
      }
      // No request made slowdisk fail to answer it (500), and some were told they were bad.
      expect(seen.has(500)).toBe(false);
      expect(seen.has(400)).toBe(true);
      const metrics = await exchange(port, Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'));
      expect(status(metrics)).toBe(200);
      expect(metrics).toContain('slowdisk_store_score');
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('');
  });
});
