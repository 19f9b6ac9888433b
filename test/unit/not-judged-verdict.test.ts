// A disk on a read-only bind (EROBIND) is not judged: neither CRITICAL as a disk that cannot
// be written, nor OK, in check's first line and in `slowdisk status`.
import { describe, expect, it } from 'vitest';
import { currentSeverity, type DiskNow } from '../../src/verdict/current-verdict.js';
import { downNotes, NOT_JUDGED_CODE } from '../../src/verdict/down-verdict.js';

const disk = (name: string, state: string, code?: string): DiskNow => ({
  name,
  inspected: true,
  state,
  inspections: 300,
  evictionInMs: null,
  ...(code === undefined ? {} : { error: { code } }),
});

describe('a disk on a read-only bind', () => {
  it('is WARNING, not CRITICAL and not OK, while it is down so', () => {
    expect(currentSeverity('ok', [disk('kv', 'down', NOT_JUDGED_CODE)])).toBe('slow');
    expect(currentSeverity('ok', [disk('kv', 'down', NOT_JUDGED_CODE), disk('raft', 'down', 'EROFS')])).toBe('evict');
    expect(currentSeverity('ok', [disk('kv', 'up')])).toBe('ok');
  });

  it("is named in check's first line apart from the disks that cannot be written", () => {
    expect(downNotes([disk('kv', 'down', NOT_JUDGED_CODE)])).toBe('not judged: kv (on a read-only bind)');
    expect(downNotes([disk('raft', 'down', 'EROFS'), disk('kv', 'down', NOT_JUDGED_CODE), disk('wal', 'down', NOT_JUDGED_CODE)])).toBe(
      'cannot be written: raft (EROFS); not judged: kv, wal (on a read-only bind)',
    );
    expect(downNotes([disk('kv', 'up')])).toBe('');
  });
});
