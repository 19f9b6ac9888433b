// The prober a probe run starts (prober-program.ts): the probes, and the outputs of the run
// (the trace, the drive history, the drives' textfile) beside them, so that a run takes two
// processes, not three. An output's syscalls run on libuv's threads, never on a probe's.
import '../common/debug-signal.js';
import { startProber } from './prober-process.js';
import { OutputService } from '../output/output-service.js';
import type { ToWriter } from '../output/writer-protocol.js';

let service: OutputService | null = null;
const reply = startProber({
  handle: (message) => service?.handle(message as ToWriter),
  busy: () => service?.busy() ?? false,
});
service = new OutputService(reply);
