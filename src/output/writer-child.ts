// The output writer of a run without probes (the drives alone): a process of its own, as the
// CLI makes no syscall on an output's path. A probe run's prober hosts the same service.
import '../common/debug-signal.js';
import { OutputService } from './output-service.js';
import type { FromWriter, ToWriter } from './writer-protocol.js';

// A working directory on an output's filesystem would keep it busy for umount.
process.chdir('/');

const service = new OutputService((message: FromWriter) => {
  if (process.connected) process.send?.(message);
});
process.on('message', (message) => service.handle(message as ToWriter));
// The CLI is done with us (or gone): a request still stuck on a hung disk is abandoned.
process.on('disconnect', () => process.exit(0));
