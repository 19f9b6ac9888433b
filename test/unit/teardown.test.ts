// A run's resources are given back in one order on every way out: the reverse of the order
// they were taken in, the outputs' bounded stops side by side, each once.
import { describe, expect, it } from 'vitest';
import { Teardown } from '../../src/common/teardown.js';

describe('Teardown', () => {
  it('releases in the reverse order of adding, side-by-side steps together, each once', async () => {
    const log: string[] = [];
    const teardown = new Teardown();
    const slow = (name: string) => () => {
      log.push(`${name} begins`);
      return new Promise<void>((resolve) => setImmediate(() => resolve(void log.push(`${name} ends`))));
    };
    teardown.add(() => void log.push('session'));
    teardown.add(slow('drives'), { sideBySide: true });
    teardown.add(slow('metrics'), { sideBySide: true });
    teardown.add(() => void log.push('status server'));
    await Promise.all([teardown.release(), teardown.release()]);
    await teardown.release();
    expect(log).toEqual(['status server', 'metrics begins', 'drives begins', 'metrics ends', 'drives ends', 'session']);
  });

  it('takes nothing more once released', async () => {
    const teardown = new Teardown();
    await teardown.release();
    expect(() => teardown.add(() => undefined)).toThrow(/after its release/);
  });
});
