// The addon's own ticks: a scheduled worker inspects on its deadlines by itself, once it has
// a probe file, and its records come back in batches, not one JS call per inspection.
// Alone in its file: the batches have one listener per process.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { ProbeWorker, flushRecordsEvery, flushRecordsNow, listenForRecords, type LoopRecord } from '../../src/native/addon.js';

const base = fs.mkdtempSync('/tmp/slowdisk-native-ticks-');
const batches: { coveredMs: number; records: LoopRecord[]; atMs: number }[] = [];
listenForRecords((coveredMs, records) => batches.push({ coveredMs, records, atMs: MONOTONIC_CLOCK.now() }));

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const until = async (done: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('a scheduled worker', () => {
  it('asks for a probe file at its first tick, then inspects every tick on its deadline, its records batched', async () => {
    const dir = fs.mkdtempSync(path.join(base, 'd'));
    const worker = new ProbeWorker('ticks');
    const intervalMs = 20;
    const startMs = MONOTONIC_CLOCK.now();
    worker.schedule({ startMs, intervalMs, roundTicks: 10, seedBase: 7, resolveName: 'd', dir });
    flushRecordsEvery(startMs, 200, 1);
    worker.place('d', 1);
    const all = () => batches.flatMap((batch) => batch.records);
    await until(() => all().some((record) => record.kind === 'ask'), 2000);
    const ask = all().find((record) => record.kind === 'ask');
    expect(ask).toMatchObject({ kind: 'ask', name: 'd', tick: 1 });
    const { staleRemoved: _, ...file } = await worker.prepare(dir, { ioSize: 4096, direct: true });
    worker.arm(file, true, 'fdatasync');
    const doneAt = worker.complete(null, false);
    await until(() => all().filter((record) => record.kind === 'inspected').length >= 40, 5000);
    // Let go: the inspection under way ends, no other starts, and the probe file is handed over.
    const released = await worker.release();
    expect(released).toEqual({ identity: file.identity, replaced: [] });
    const flushed = async () => {
      const seen = batches.length;
      flushRecordsNow();
      await until(() => batches.length > seen, 1000);
    };
    await flushed();
    const inspected = all().filter((record): record is LoopRecord & { kind: 'inspected' } => record.kind === 'inspected');
    await new Promise((resolve) => setTimeout(resolve, 5 * intervalMs));
    await flushed();
    expect(worker.inFlightSince()).toBeNull();
    expect(all().filter((record) => record.kind === 'inspected').length).toBe(inspected.length);
    await worker.remove(file);
    worker.close();
    expect(inspected.length).toBeGreaterThanOrEqual(40);
    // From the first tick due after the handover, one inspection a tick, none skipped.
    const ticks = inspected.map((record) => record.tick);
    expect(ticks[0]).toBe(Math.floor((doneAt - startMs) / intervalMs) + 1);
    expect(ticks).toEqual(ticks.map((_, i) => ticks[0]! + i));
    for (const record of inspected) {
      // Started at its deadline (never before it), and recorded after it finished.
      const late = record.startedMs - (startMs + record.tick * intervalMs);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(intervalMs);
      expect(record.atMs - record.startedMs).toBeGreaterThanOrEqual(record.totalNs / 1e6);
    }
    // 40 inspections at 20 ms in about 4 batches of 200 ms, not 40 calls; every record
    // came in the first batch covering the time it was recorded.
    const carrying = batches.filter((batch) => batch.records.some((record) => record.kind === 'inspected'));
    expect(carrying.length).toBeLessThanOrEqual(8);
    let covered = -Infinity;
    for (const batch of batches) {
      for (const record of batch.records) {
        expect(record.atMs).toBeGreaterThan(covered);
        expect(record.atMs).toBeLessThanOrEqual(batch.coveredMs);
      }
      covered = batch.coveredMs;
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
