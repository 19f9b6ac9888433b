// The prober of an earlier run stuck on a disk's filesystem: a disk about to be inspected
// there for the first time is left to it (hung from when that prober got stuck, not inspected
// by this run), and taken back once that prober comes unstuck.
import { describe, expect, it } from 'vitest';
import type { StuckProber } from '../../src/prober/prober-registry.js';
import { StuckProbers } from '../../src/live/stuck-probers.js';
import { diskStatuses } from '../../src/live/disk-statuses.js';
import type { DiskRecord, LiveDisks } from '../../src/live/live-disks.js';
import { defaultPipeline, liveDisks } from '../helpers/live-parts.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';

const NOW_WALL = 1_800_000_000_000;
const noDevices = { devicesOf: () => [], stalledOf: () => [] };

const diskNamed = (disks: LiveDisks, name: string): DiskRecord => [...disks.all()].find((disk) => disk.status.name === name)!;

function withStuckProber(stuckForMs: number) {
  const pipeline = defaultPipeline(DEFAULT_SCORE_PARAMS, 5000);
  const { disks } = liveDisks(pipeline, ['raft', 'kv']);
  const prober: StuckProber = { pid: 4321, stuckSinceMs: NOW_WALL - stuckForMs, file: '/run/slowdisk/4321.json', startTime: '99' };
  let still = true;
  const clock = { now: () => 10_000 };
  const finder = { on: (device: string, ownPid: number | undefined) => (device === '8:0' && ownPid !== 4321 ? prober : null), still: () => still };
  const stuck = new StuckProbers(pipeline, () => 1000, finder, clock, () => NOW_WALL);
  const unstick = () => (still = false);
  return { pipeline, disks, stuck, unstick, clock };
}

describe('StuckProbers', () => {
  it('leaves a starting disk to the prober stuck on its filesystem: not placed, hung at once when stuck longer than --hang-after', () => {
    const { pipeline, disks, stuck, clock } = withStuckProber(60_000);
    expect(stuck.leave(diskNamed(disks, 'raft'))).toEqual({ disk: 'raft', waitingMs: 60_000, sinceMs: -50_000 });
    expect(stuck.leave(diskNamed(disks, 'kv'))).toBeNull();
    expect(disks.placements()).toEqual([{ name: 'kv', device: '8:1' }]);
    const raft = diskStatuses(disks.all(), pipeline, noDevices, clock.now()).find((disk) => disk.name === 'raft')!;
    expect(raft).toMatchObject({ state: 'hung', stuckProber: 4321, hungSinceMs: NOW_WALL - 60_000 });
    expect(pipeline.verdict.severity).toBe('slow');
  });

  it('one stuck for less than --hang-after is not hung yet, and only a disk still starting is left to it', () => {
    const { disks, stuck } = withStuckProber(1000);
    diskNamed(disks, 'raft').status.state = 'up';
    expect(stuck.leave(diskNamed(disks, 'raft'))).toBeNull();
    expect(diskNamed(disks, 'raft').stuckProber).toBeNull();
    diskNamed(disks, 'raft').status.state = 'starting';
    expect(stuck.leave(diskNamed(disks, 'raft'))).toBeNull();
    expect(diskNamed(disks, 'raft').stuckProber?.pid).toBe(4321);
  });

  it('takes the disk back once that prober came unstuck: placed again, its next tick starts an inspection', () => {
    const { pipeline, disks, stuck, unstick } = withStuckProber(60_000);
    stuck.leave(diskNamed(disks, 'raft'));
    expect(stuck.release(disks)).toBe(false);
    pipeline.tick({ tick: 1, atMs: 10_100 });
    expect(pipeline.disk('kv', 10_100)?.inFlightSinceMs).toBe(10_100);
    expect(pipeline.disk('raft', 10_150)).toMatchObject({ hung: true, waitingMs: 60_150 });
    unstick();
    expect(stuck.release(disks)).toBe(true);
    expect(disks.placements().map((placement) => placement.name)).toEqual(['raft', 'kv']);
    pipeline.tick({ tick: 2, atMs: 10_200 });
    expect(pipeline.disk('raft', 10_200)?.inFlightSinceMs).toBe(10_200);
    expect(pipeline.disk('raft', 10_250)).toMatchObject({ hung: false });
    expect(pipeline.disk('raft', 10_250)?.waitingMs).toBeUndefined();
  });
});
