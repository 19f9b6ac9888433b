// Every parameter of the two detectors has a flag, recorded in a trace's header: a replay of a
// run made with other values reaches the states that run showed. Two follow something else:
// the failure latency (--timeout) and the comparison with the peers (always on).
import { describe, expect, it } from 'vitest';
import type { ParamSpec } from '../../src/common/param-spec.js';
import { DEFAULT_STATISTICAL_PARAMS, STATISTICAL_SPECS } from '../../src/detectors/statistical-params.js';
import { DEFAULT_TAIL_PARAMS, TAIL_SPECS } from '../../src/detectors/tail-params.js';

const WITHOUT_FLAG = ['failureLatencyMs', 'peerCondition'];

describe("the detectors' parameters", () => {
  it.each([
    ['statistical', DEFAULT_STATISTICAL_PARAMS, STATISTICAL_SPECS],
    ['tail', DEFAULT_TAIL_PARAMS, TAIL_SPECS],
  ] as [string, object, readonly ParamSpec[]][])('each of the %s detector has a flag that the trace header records', (_, defaults, specs) => {
    const recorded = specs.filter((spec) => spec.trace !== undefined).map((spec) => spec.key);
    expect(recorded.sort()).toEqual(Object.keys(defaults).filter((key) => !WITHOUT_FLAG.includes(key)).sort());
  });
});
