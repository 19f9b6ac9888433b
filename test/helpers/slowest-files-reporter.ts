// The suite's time budget, in sight: every run ends with its ten slowest test files, so that a
// file that grows slow is seen in the run that made it so, not when the whole suite is.
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

/** From the file's import to its last hook: what the file holds a worker for. */
function fileMs(module: TestModule): number {
  const { environmentSetupDuration, prepareDuration, collectDuration, setupDuration, duration } = module.diagnostic();
  return environmentSetupDuration + prepareDuration + collectDuration + setupDuration + duration;
}

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length === 0) return;
    const slowest = modules
      .map((module) => ({ file: path.relative(process.cwd(), module.moduleId), project: module.project.name, ms: fileMs(module) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    const width = Math.max(...slowest.map(({ file }) => file.length));
    const lines = slowest.map(({ file, project, ms }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file.padEnd(width)}  ${project}`);
    process.stdout.write(`\nThe ${slowest.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}
