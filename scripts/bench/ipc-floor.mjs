// The floor under slowdisk's CPU time and memory: two Node processes that do what the
// CLI and its prober do minus any I/O. The parent ticks on absolute deadlines every
// INTERVAL_MS and sends one 'inspect' message for all disks over a forked child's IPC
// channel (JSON, as src/prober/prober-client.ts does); the child answers each disk with an
// 'inspected' message of the same shape as the prober's, a little later for each disk
// (the prober's answers come back one by one, as each disk's thread finishes).
//
//   node ipc-floor.mjs DISKS [INTERVAL_MS]
//
// Runs until SIGTERM; the bench reads both processes' CPU time and memory from /proc.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'child') {
  process.on('message', (message) => {
    // Answered after 1 ms, 2 ms, ... by disk, like threads finishing one after another.
    message.disks.forEach(({ name }, disk) => {
      setTimeout(() => {
        process.send?.({
          type: 'inspected',
          name,
          tick: message.tick,
          created: false,
          timings: { openMs: 0.031, writeMs: 0.296, syncMs: 0.224, readMs: 0.183, closeMs: 0.006, totalMs: 0.741 },
        });
      }, 1 + disk);
    });
  });
  process.on('disconnect', () => process.exit(0));
} else {
  const disks = Number(process.argv[2] ?? 2);
  const intervalMs = Number(process.argv[3] ?? 100);
  const child = fork(fileURLToPath(import.meta.url), ['child'], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });
  const names = Array.from({ length: disks }, (_, i) => `disk${i}`);
  let answers = 0;
  child.on('message', () => {
    answers += 1;
  });
  const start = performance.now();
  let tick = 0;
  const schedule = () => {
    const deadline = start + (tick + 1) * intervalMs;
    setTimeout(() => {
      tick += 1;
      schedule();
      child.send({ type: 'inspect', tick, disks: names.map((name) => ({ name, freshBlock: false })) });
    }, Math.max(0, deadline - performance.now()));
  };
  schedule();
  process.on('SIGTERM', () => {
    child.disconnect();
    process.stdout.write(`${JSON.stringify({ ticks: tick, answers, childPid: child.pid })}\n`);
    process.exit(0);
  });
}
