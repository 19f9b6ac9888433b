// The parts of a live session (src/live/) put together without a prober: a pipeline with the
// defaults watch and replay share, the disks placed as inspected, and what they tell.
import { DEFAULT_SCORE_PARAMS, type ScoreParams } from '../../src/score/score-params.js';
import { statisticalParams } from '../../src/detectors/statistical-params.js';
import { tailParams } from '../../src/detectors/tail-params.js';
import { predictorParams } from '../../src/early-warning/predictor-params.js';
import { DEFAULT_PROBE_PARAMS } from '../../src/probe/probe-params.js';
import { VerdictPipeline } from '../../src/verdict/verdict-pipeline.js';
import { LiveDisks } from '../../src/live/live-disks.js';
import type { InspectionRecord, SessionEvent } from '../../src/live/session-events.js';
import type { ErrorFields } from '../../src/native/addon.js';

/** A pipeline as replay makes it by default (src/replay/replay-engine.ts). */
export function defaultPipeline(score: ScoreParams = DEFAULT_SCORE_PARAMS, hangAfterMs = DEFAULT_PROBE_PARAMS.hangAfterMs): VerdictPipeline {
  return new VerdictPipeline({
    score,
    statistical: statisticalParams({ failureLatencyMs: score.timeoutMs }),
    tail: tailParams({ failureLatencyMs: score.timeoutMs }),
    predictor: predictorParams({ timeoutMs: score.timeoutMs }),
    criticalOn: 'evict',
    hangAfterMs,
  });
}

export interface Told {
  events: SessionEvent[];
  inspections: InspectionRecord[];
  fatal: string[];
  resolve: string[];
}

/** `names` placed as inspected disks of their own, each in /NAME, and told to the pipeline. */
export function liveDisks(pipeline: VerdictPipeline, names: readonly string[], onInspection?: (record: InspectionRecord) => void): { disks: LiveDisks; told: Told } {
  const told: Told = { events: [], inspections: [], fatal: [], resolve: [] };
  const disks = new LiveDisks(pipeline, {
    event: (event) => told.events.push(event),
    inspection: (record) => (onInspection ? onInspection(record) : told.inspections.push(record)),
    fatal: (message) => told.fatal.push(message),
    resolve: (name) => told.resolve.push(name),
  });
  names.forEach((name, i) => disks.place({ name, dir: `/${name}`, inspected: true, device: `8:${i}`, memoryBacked: false }));
  pipeline.disks(names);
  return { disks, told };
}

/** An errno as the prober reports it. */
export function probeError(code: string, disk: string): ErrorFields {
  return { code, errno: 0, syscall: 'pwrite', path: `/${disk}/.slowdisk-probe`, message: `${code}: pwrite /${disk}/.slowdisk-probe` };
}
