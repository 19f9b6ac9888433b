// Traces from the scenario generator, written to files for `slowdisk replay` to read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { scenarioTrace, type ScenarioOptions } from '../../dev/scenarios/index.js';

/** A `traceOf(name, options)` writing into a temp directory that is removed after the file's tests. */
export function scenarioTraceFiles(prefix: string): (name: string, options: ScenarioOptions) => string {
  const work = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return (name, options) => {
    const file = path.join(work, `${name}.jsonl`);
    writeFileSync(file, `${[...scenarioTrace(options)].join('\n')}\n`);
    return file;
  };
}
