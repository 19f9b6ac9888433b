// `slowdisk status` says whose verdict it prints: every format names the store that answered,
// and when none does, the line says that only `watch --store NAME` answers and which stores do.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSummary } from '../../src/formats/check-summary.js';
import { JsonLines } from '../../src/formats/json-lines.js';
import { nagiosLine } from '../../src/formats/nagios.js';
import { askStatus } from '../../src/status/status-client.js';
import { StatusServer } from '../../src/status/status-server.js';
import { outcomeOf } from '../../src/status/status-snapshot.js';
import { statusSnapshot } from '../helpers/status-snapshot.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-status-names-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let made = 0;
const freshDir = () => path.join(work, `run-${++made}`);

const ONLY_WATCH = 'only `slowdisk watch --store NAME` answers status';

describe('status without --store, one store served', () => {
  it('answers from that store, and the human, Nagios and JSON lines name it', async () => {
    const dir = freshDir();
    const server = await StatusServer.start('demo', () => statusSnapshot('demo'), dir);
    const answer = await askStatus(undefined, dir);
    await server.close();
    expect(answer.kind).toBe('answered');
    if (answer.kind !== 'answered') return;
    const outcome = outcomeOf(answer.snapshot);
    expect(checkSummary(outcome, answer.snapshot.params, false)).toMatch(/^OK: store 'demo' score 1\.00 after 60\.0s \(/);
    expect(nagiosLine(outcome, answer.snapshot.params, false)).toMatch(/^SLOWDISK OK - store 'demo' score 1 \(/);
    let json = '';
    new JsonLines(answer.snapshot.params, (lines) => (json += lines), { now: () => 0, currentTick: () => 0, buffered: false }).summary(outcome);
    expect(JSON.parse(json)).toMatchObject({ type: 'summary', status: 'OK', store: 'demo' });
  });
});

describe('status when no service answers', () => {
  it('for a store whose service ended: names it, says what answers, and lists the stores that are served', async () => {
    const dir = freshDir();
    const demo = await StatusServer.start('demo', () => statusSnapshot('demo'), dir);
    const kv1 = await StatusServer.start('kv1', () => statusSnapshot('kv1'), dir);
    const kv2 = await StatusServer.start('kv2', () => statusSnapshot('kv2'), dir);
    await demo.close();
    expect(await askStatus('demo', dir)).toEqual({ kind: 'not-running', reason: `slowdisk is not running for the store 'demo' (${ONLY_WATCH}; the stores served here: kv1, kv2)` });
    await Promise.all([kv1.close(), kv2.close()]);
    expect(await askStatus('demo', dir)).toEqual({ kind: 'not-running', reason: `slowdisk is not running for the store 'demo' (${ONLY_WATCH}; no store is served here)` });
  });

  it('with no store named and none served (a plain watch may run): says that only watch --store answers', async () => {
    const dir = freshDir();
    const server = await StatusServer.start('demo', () => statusSnapshot('demo'), dir);
    await server.close();
    expect(await askStatus(undefined, dir)).toEqual({ kind: 'not-running', reason: `slowdisk is not running as a service (${ONLY_WATCH}; no store is served here)` });
    // No status directory at all: the same line.
    expect(await askStatus(undefined, path.join(work, 'never-made'))).toEqual({ kind: 'not-running', reason: `slowdisk is not running as a service (${ONLY_WATCH}; no store is served here)` });
  });

  it('a garbled store name in an answer is not printed', async () => {
    const dir = freshDir();
    const server = await StatusServer.start('kv1', () => statusSnapshot('kv1\nSLOWDISK OK'), dir);
    expect(await askStatus('kv1', dir)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/gave no answer slowdisk reads/) });
    await server.close();
  });
});
