// The order the suite's files start in. A group of files run side by side ends when its
// longest file does: a file of several minutes started last would leave the other workers
// idle while it runs alone. The files below are the long ones, slowest first; they start
// before the rest of their group, and the others fill the other workers around them. A
// fresh clone has no timings of its own yet to go by (vitest's cache), so the list is kept
// here; a file not on it starts in vitest's usual order.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const STARTED_FIRST = [
  'test/e2e/faults-tail-slow.test.ts',
  'test/e2e/early-warning-e2e.test.ts',
  'test/e2e/package-install.test.ts',
  'test/e2e/replay-params-e2e.test.ts',
  'test/e2e/record-replay-e2e.test.ts',
  'test/e2e/service-status.test.ts',
  'test/e2e/faults-nothing-lost.test.ts',
  'test/unit/drive-history.test.ts',
];

function rank(spec: TestSpecification): number {
  const index = STARTED_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return index < 0 ? STARTED_FIRST.length : index;
}

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const usual = await super.sort(files);
    const position = new Map(usual.map((spec, i) => [spec, i]));
    const groupOrder = (spec: TestSpecification) => spec.project.config.sequence.groupOrder ?? 0;
    return [...usual].sort((a, b) => groupOrder(a) - groupOrder(b) || rank(a) - rank(b) || position.get(a)! - position.get(b)!);
  }
}
