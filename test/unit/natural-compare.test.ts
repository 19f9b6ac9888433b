import { describe, expect, it } from 'vitest';
import { naturalCompare } from '../../src/common/natural-compare.js';

describe('naturalCompare', () => {
  it('puts numbers in their order, not their digits', () => {
    expect(['sdb10', 'sdb2', 'sdb1'].sort(naturalCompare)).toEqual(['sdb1', 'sdb2', 'sdb10']);
    expect(['host_10', 'host_9', 'host_100'].sort(naturalCompare)).toEqual(['host_9', 'host_10', 'host_100']);
    expect(['disk007', 'disk8'].sort(naturalCompare)).toEqual(['disk007', 'disk8']);
  });

  it('sorts the names it is given as the numeric collator of the en locale does', () => {
    const names = [
      'sda', 'sdb', 'sdaa', 'sdz', 'sdb10', 'sdb2', 'vda', 'vdb', 'xvda', 'nvme0n1', 'nvme1n1', 'nvme10n1', 'nvme2n1', 'nvme0n10', 'nvme0n2',
      'loop0', 'loop10', 'loop9', 'md0', 'md127', 'dm-0', 'dm-10', 'dm-2', 'sr0', 'zram0', 'mmcblk0', 'mmcblk10', 'mmcblk1',
      'host_1', 'host_12', 'host_2', 'drive_3', 'drive_30', 'drive_4', '2024-01-09', '2024-01-10', '2023-12-31', 'HDD', 'SSD', 'ssd', '',
    ];
    const collator = new Intl.Collator('en', { numeric: true });
    expect([...names].sort(naturalCompare)).toEqual([...names].sort(collator.compare));
  });

  it('is a total order: equal only for the same name', () => {
    expect(naturalCompare('a1', 'a1')).toBe(0);
    expect(Math.sign(naturalCompare('a01', 'a1'))).toBe(-Math.sign(naturalCompare('a1', 'a01')));
    expect(naturalCompare('a01', 'a1')).not.toBe(0);
    expect(naturalCompare('Ssd', 'ssd')).not.toBe(0);
  });
});
