// What `slowdisk status` says of a store now: its last round's verdict, and from the disks as
// they are, a hang, a disk that cannot be written, a rising disk, a filesystem changed.
import { describe, expect, it } from 'vitest';
import { currentSeverity, type DiskNow } from '../../src/verdict/current-verdict.js';

const up = (extra: Partial<DiskNow> = {}): DiskNow => ({ name: 'kv', inspected: true, state: 'up', inspections: 300, evictionInMs: null, ...extra });

describe("a service's verdict now", () => {
  it('is its last round while the disks are as they were', () => {
    expect(currentSeverity('ok', [up()])).toBe('ok');
    expect(currentSeverity('evict', [up()])).toBe('evict');
  });

  it('a store that recovered is OK again: not the worst since the start', () => {
    expect(currentSeverity('ok', [up({ evictionInMs: null })])).toBe('ok');
  });

  it('WARNING for a hung disk, a rising one, or one whose filesystem changed; CRITICAL for one that cannot be written', () => {
    expect(currentSeverity('ok', [up({ state: 'hung' })])).toBe('slow');
    expect(currentSeverity('ok', [up({ evictionInMs: 12_000 })])).toBe('slow');
    expect(currentSeverity('ok', [up({ filesystemChanged: true })])).toBe('slow');
    expect(currentSeverity('ok', [up({ state: 'down', error: { code: 'EROFS' } })])).toBe('evict');
    // Down for another reason (its directory deleted): left to the score.
    expect(currentSeverity('ok', [up({ state: 'down', error: { code: 'ENOENT' } })])).toBe('ok');
    // A skipped path is not judged rising.
    expect(currentSeverity('ok', [up({ inspected: false, evictionInMs: 12_000 })])).toBe('ok');
  });
});
