// Each disk of a live session as its results say it is, and what the outputs are told: down
// once per error, back once, a lost name race told once and never charged, a path that
// cannot be probed at its first attempt ends the run, and another filesystem mounted onto a
// directory is another disk, scored from 1.
import { describe, expect, it } from 'vitest';
import type { InspectedRecord, PhaseTimings } from '../../src/probe/prober-protocol.js';
import { diskStatuses } from '../../src/live/disk-statuses.js';
import { defaultPipeline, liveDisks, probeError } from '../helpers/live-parts.js';

const fast: PhaseTimings = { openMs: 0, writeMs: 0.5, syncMs: 0.5, readMs: 0, closeMs: 0, totalMs: 1 };
const failed = (name: string, tick: number, code: string): InspectedRecord => ({ kind: 'inspected', name, tick, atMs: tick * 100 + 3, error: probeError(code, name) });
const lost = (name: string, tick: number, contested = false): InspectedRecord => ({ kind: 'inspected', name, tick, atMs: tick * 100 + 1, lost: probeError('ENAMETAKEN', name), ...(contested ? { contested } : {}) });
const noDevices = { devicesOf: () => [], stalledOf: () => [] };

function started(names: string[]) {
  const pipeline = defaultPipeline();
  const parts = liveDisks(pipeline, names);
  const tick = (k: number) => pipeline.tick({ tick: k, atMs: k * 100 });
  const stateOf = (name: string) => diskStatuses(parts.disks.all(), pipeline, noDevices, pipeline.currentTick * 100 + 50).find((disk) => disk.name === name)!;
  return { pipeline, ...parts, tick, stateOf };
}

describe('LiveDisks', () => {
  it('a disk that fails: down once per error, CRITICAL when it cannot be written, back once it answers', () => {
    const { disks, told, tick, stateOf, pipeline } = started(['raft']);
    tick(1);
    disks.timed('raft', 1, 101, fast, 0, true);
    tick(2);
    disks.inspected(failed('raft', 2, 'EIO'), 0, true);
    tick(3);
    disks.inspected(failed('raft', 3, 'EIO'), 0, true);
    tick(4);
    disks.inspected(failed('raft', 4, 'EROFS'), 0, true);
    expect(stateOf('raft')).toMatchObject({ state: 'down', error: { code: 'EROFS' }, errors: 3, inspections: 1 });
    expect(pipeline.verdict.severity).toBe('evict');
    tick(5);
    disks.timed('raft', 5, 501, fast, 0, true);
    expect(told.events.map((event) => [event.kind, 'error' in event ? event.error.code : undefined])).toEqual([
      ['down', 'EIO'],
      ['down', 'EROFS'],
      ['back', undefined],
    ]);
    expect(stateOf('raft')).toMatchObject({ state: 'up', last: fast });
    expect(told.inspections.map(({ tick, error }) => [tick, error?.code])).toEqual([
      [1, undefined],
      [2, 'EIO'],
      [3, 'EIO'],
      [4, 'EROFS'],
      [5, undefined],
    ]);
  });

  it('a path that cannot be probed at its first attempt ends the run, naming it; one that cannot be written is a finding', () => {
    const { disks, told, tick } = started(['raft', 'kv']);
    tick(1);
    disks.inspected(failed('raft', 1, 'EINVAL'), 0, true);
    disks.inspected(failed('kv', 1, 'ENOSPC'), 0, true);
    expect(told.fatal).toEqual(['cannot probe raft=/raft: EINVAL: pwrite /raft/.slowdisk-probe']);
    expect(told.events).toEqual([{ kind: 'down', disk: 'kv', error: expect.objectContaining({ code: 'ENOSPC' }) }]);
  });

  it('a name race lost is told once, a contested directory once, neither charged; the disk is back once a file is inspected', () => {
    const { disks, told, tick, stateOf, pipeline } = started(['raft']);
    tick(1);
    disks.timed('raft', 1, 101, fast, 0, true);
    for (let k = 2; k <= 29; k += 1) {
      tick(k);
      disks.inspected(lost('raft', k, k >= 4), 0, true);
    }
    expect(stateOf('raft').state).toBe('contested');
    tick(30);
    disks.timed('raft', 30, 3001, fast, 0, true);
    expect(told.events.map((event) => event.kind)).toEqual(['name-taken', 'contested', 'back']);
    expect(pipeline.chargedTimeouts().get('raft') ?? 0).toBe(0);
    expect(told.inspections.filter((record) => record.lost)).toHaveLength(28);
  });

  it('a directory on another filesystem now is resolved anew, not shown down', () => {
    const { disks, told, tick } = started(['raft']);
    tick(1);
    disks.timed('raft', 1, 101, fast, 0, true);
    tick(2);
    disks.inspected(failed('raft', 2, 'EOTHERFS'), 0, true);
    expect([told.resolve, told.events]).toEqual([['raft'], []]);
  });

  it('another filesystem mounted onto the directory is another disk: starting, scored from 1, marked changed', () => {
    const { disks, tick, stateOf } = started(['raft']);
    tick(1);
    disks.timed('raft', 1, 101, fast, 0, true);
    disks.place({ name: 'raft', dir: '/raft', inspected: true, device: '9:9', memoryBacked: false });
    expect(stateOf('raft')).toMatchObject({ state: 'starting', device: '9:9', score: 1, filesystemChanged: true });
  });

  it('a path skipped (its filesystem inspected through another) ignores its last result', () => {
    const { disks, told, tick, stateOf } = started(['raft', 'kv']);
    tick(1);
    disks.place({ name: 'kv', dir: '/kv', inspected: false, sameAs: 'raft', device: '8:0', memoryBacked: false });
    disks.timed('kv', 1, 101, fast, 0, true);
    expect(stateOf('kv')).toMatchObject({ state: 'skipped', sameAs: 'raft' });
    expect(told.inspections).toEqual([]);
    expect(disks.placements()).toEqual([{ name: 'raft', device: '8:0' }]);
  });
});
