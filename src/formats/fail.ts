// Bad input and unprobeable paths end with one line on stderr and a documented exit code;
// under --format nagios, also the one status line on stdout that a monitoring system reads
// (with nothing there, NRPE shows "no output returned from plugin").
import { visible, writeStderrLine } from '../common/visible-text.js';
import { nagiosStatusLine } from './nagios.js';

let nagios = false;

/** From now on a failure also prints "SLOWDISK UNKNOWN - <message>" on stdout. */
export function failAsNagios(): void {
  nagios = true;
}

export function fail(message: string, code: number): never {
  writeStderrLine(message);
  if (nagios) process.stdout.write(`${visible(nagiosStatusLine(code, message))}\n`);
  process.exit(code);
}
