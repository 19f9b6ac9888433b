// A worker thread of the detection benchmark (dev/bench/detect.ts): takes jobs from the main
// thread and sends back one result per job, until a null.
import { parentPort, workerData } from 'node:worker_threads';
import type { StatisticalParams } from '../../src/detectors/statistical-params.js';
import type { TailParams } from '../../src/detectors/tail-params.js';
import { runJob, type Job } from './detect-runs.js';

/** What each worker is started with. */
export interface WorkerSetup {
  statParams: StatisticalParams;
  tailParams: TailParams;
}

if (!parentPort) throw new Error('detect-worker.js runs as a worker thread of detect.js');
const port = parentPort;
const setup = workerData as WorkerSetup;
port.on('message', (job: Job | null) => {
  if (job === null) {
    port.close();
    return;
  }
  port.postMessage(runJob(job, setup.statParams, setup.tailParams));
});
