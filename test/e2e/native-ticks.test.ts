// The addon's own ticks: a scheduled worker makes its probe file at its first tick and
// inspects on its deadlines by itself, and its records come back in batches, not one JS call
// per inspection.
// Alone in its file: the batches have one listener per process.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { ProbeWorker, flushRecordsEvery, flushRecordsNow, listenForRecords, type LoopNotice } from '../../src/native/addon.js';
import type { BatchRecord, InspectedRecord, TimedRow } from '../../src/native/batch-records.js';

const base = fs.mkdtempSync('/tmp/slowdisk-native-ticks-');
const batches: { coveredMs: number; records: BatchRecord[]; notices: LoopNotice[]; atMs: number }[] = [];
listenForRecords((coveredMs, recordsJson, notices) => batches.push({ coveredMs, records: JSON.parse(recordsJson) as BatchRecord[], notices, atMs: MONOTONIC_CLOCK.now() }));

const isRow = (record: BatchRecord): record is TimedRow => Array.isArray(record);
const atMsOf = (record: BatchRecord): number => (isRow(record) ? record[2] : record.atMs);

afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const until = async (done: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('a scheduled worker', () => {
  it('makes its probe file at its first tick, then inspects every tick on its deadline, its records batched', async () => {
    const dir = fs.mkdtempSync(path.join(base, 'd'));
    const worker = new ProbeWorker('ticks');
    const intervalMs = 20;
    const startMs = MONOTONIC_CLOCK.now();
    // The records' JSON carries the name as given, whatever it holds.
    const name = 'd "1"\\\t€';
    worker.schedule({ startMs, intervalMs, roundTicks: 10, seedBase: 7, resolveName: name, dir, ioSize: 4096, direct: true, sync: 'fdatasync' });
    flushRecordsEvery(startMs, 200, 1);
    worker.place(name, 1);
    const all = () => batches.flatMap((batch) => batch.records);
    const rows = () => all().filter(isRow);
    const notices = () => batches.flatMap((batch) => batch.notices);
    await until(() => all().length >= 2, 2000);
    // The round's resolution, for the prober too; the first tick's inspection, of the file it made.
    expect(notices()).toEqual([expect.objectContaining({ kind: 'resolved', name, resolution: expect.objectContaining({ resolvedDir: fs.realpathSync(dir) }) })]);
    expect(all()).toEqual([
      expect.objectContaining({ kind: 'inspected', name, tick: 1, created: false, timings: expect.objectContaining({ totalMs: expect.any(Number) }) }),
      expect.objectContaining({ kind: 'resolved', name }),
    ]);
    expect(fs.readdirSync(dir)).toEqual([expect.stringMatching(/^\.slowdisk-probe-/)]);
    const made = all()[0] as InspectedRecord;
    await until(() => rows().length >= 40, 5000);
    // Let go: the inspection under way ends, no other starts, and the probe file is removed.
    await worker.release();
    expect(fs.readdirSync(dir)).toEqual([]);
    const flushed = async () => {
      const seen = batches.length;
      flushRecordsNow();
      await until(() => batches.length > seen, 1000);
    };
    await flushed();
    const inspected = rows();
    await new Promise((resolve) => setTimeout(resolve, 5 * intervalMs));
    await flushed();
    expect(worker.inFlightSince()).toBeNull();
    expect(rows().length).toBe(inspected.length);
    await worker.stop();
    expect(inspected.length).toBeGreaterThanOrEqual(40);
    // From the first tick due after the first, one inspection a tick, none skipped.
    const ticks = inspected.map(([, tick]) => tick);
    expect(ticks[0]).toBe(Math.floor((made.atMs - startMs) / intervalMs) + 1);
    expect(ticks).toEqual(ticks.map((_, i) => ticks[0]! + i));
    for (const [rowName, tick, atMs, openMs, writeMs, syncMs, readMs, closeMs, totalMs, startedMs, waitMs, startWaitMs] of inspected) {
      expect(rowName).toBe(name);
      // Started at its deadline (never before it), and recorded after it finished.
      const late = startedMs - (startMs + tick * intervalMs);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(intervalMs);
      expect(atMs - startedMs).toBeGreaterThanOrEqual(totalMs);
      // The phases, each in ms, add up to the whole but for the comparison, untimed.
      expect(openMs + writeMs + syncMs + readMs + closeMs).toBeLessThanOrEqual(totalMs + 1e-9);
      expect(syncMs).toBeGreaterThan(0);
      // The probe thread's wait for a CPU is read before and after every inspection, so that
      // each one's own is known. This kernel keeps it.
      expect(waitMs).toBeGreaterThanOrEqual(0);
      expect(startWaitMs).toBeGreaterThanOrEqual(0);
    }
    // 40 inspections at 20 ms in about 4 batches of 200 ms, not 40 calls; every record
    // came in the first batch covering the time it was recorded.
    const carrying = batches.filter((batch) => batch.records.some(isRow));
    expect(carrying.length).toBeLessThanOrEqual(8);
    let covered = -Infinity;
    for (const batch of batches) {
      for (const record of batch.records) {
        expect(atMsOf(record)).toBeGreaterThan(covered);
        expect(atMsOf(record)).toBeLessThanOrEqual(batch.coveredMs);
      }
      covered = batch.coveredMs;
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
