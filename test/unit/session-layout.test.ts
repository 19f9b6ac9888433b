// Where a session's paths are: one resolution per directory whatever the names given it, a
// start that fails naming every path of a directory that cannot be probed, and the layout
// placed anew from the mount table once resolutions came back.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MountTable, parseMountInfo } from '../../src/mounts/mount-table.js';
import type { FromProber, ToProber } from '../../src/probe/prober-protocol.js';
import { SessionLayout, StartupError } from '../../src/live/session-layout.js';
import { probeError } from '../helpers/live-parts.js';

const EXT4 = 0xef53;
const mounts = () => new MountTable(parseMountInfo(['27 1 254:0 / / rw - ext4 /dev/vda rw', '40 27 7:0 / /data rw - ext4 /dev/loop0 rw'].join('\n')));
const on = (mntId: number, major: number, minor: number, resolvedDir: string) => ({ mntId, devMajor: major, devMinor: minor, fsMagic: EXT4, resolvedDir });
const targets = () => [
  { name: 'raft', dir: '/data/raft' },
  { name: 'raft-again', dir: '/data/raft' },
  { name: 'kv', dir: '/data/kv' },
];

/** A prober that answers the start's resolutions as `answer` says (null: never). */
class FakeProber extends EventEmitter<{ message: [FromProber]; lost: [string] }> {
  readonly sent: ToProber[] = [];
  constructor(private readonly answer: (name: string) => FromProber | null) {
    super();
  }
  send(message: ToProber): void {
    this.sent.push(message);
    if (message.type !== 'resolve') return;
    for (const name of message.names) {
      const reply = this.answer(name);
      if (reply) queueMicrotask(() => this.emit('message', reply));
    }
  }
}

describe('SessionLayout', () => {
  it('asks once per directory, and not again while its answer is awaited', () => {
    const layout = new SessionLayout(targets(), mounts);
    expect(layout.toResolve(['raft', 'raft-again', 'kv'])).toEqual(['raft', 'kv']);
    expect(layout.toResolve(['raft-again'])).toEqual([]);
    expect(layout.answered('raft')).toBe(false);
    expect(layout.answered('kv')).toBe(true);
    expect(layout.toResolve(['raft-again'])).toEqual(['raft']);
  });

  it('places the names of one filesystem once, and is stale once a resolution comes after it was placed', () => {
    const layout = new SessionLayout(targets(), mounts);
    layout.resolved('raft', on(40, 7, 0, '/data/raft'));
    layout.resolved('kv', on(40, 7, 0, '/data/kv'));
    expect(layout.takeStale()).toBe(false);
    const { placements, changed } = layout.place();
    expect(changed).toBe(true);
    expect(placements.map(({ name, inspected, sameAs }) => [name, inspected, sameAs])).toEqual([
      ['raft', true, undefined],
      ['raft-again', false, 'raft'],
      ['kv', false, 'raft'],
    ]);
    expect(layout.inspected().map((placement) => placement.name)).toEqual(['raft']);
    layout.resolved('kv', on(40, 7, 0, '/data/kv'));
    expect(layout.takeStale()).toBe(true);
    expect(layout.takeStale()).toBe(false);
    expect(layout.place().changed).toBe(false);
  });

  it('a start fails naming every path given a directory that cannot be probed', async () => {
    const layout = new SessionLayout(targets(), mounts);
    const prober = new FakeProber((name) =>
      name === 'raft' ? { type: 'resolved', name, error: probeError('ENOENT', 'data/raft') } : { type: 'resolved', name, resolution: on(40, 7, 0, '/data/kv') },
    );
    const start = layout.resolveAtStart(prober).catch((error: unknown) => error);
    const error = await start;
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe('cannot probe raft=/data/raft: ENOENT: pwrite /data/raft/.slowdisk-probe; raft-again=/data/raft: ENOENT: pwrite /data/raft/.slowdisk-probe');
    expect(prober.sent).toEqual([{ type: 'resolve', names: ['raft', 'kv'] }]);
  });

  it('a prober lost during the start fails it with its reason', async () => {
    const layout = new SessionLayout(targets(), mounts);
    const prober = new FakeProber(() => null);
    const start = layout.resolveAtStart(prober);
    prober.emit('lost', 'the prober (pid 1234) was killed by SIGKILL');
    await expect(start).rejects.toThrow(new StartupError('the prober (pid 1234) was killed by SIGKILL'));
  });
});
