// Bad input and unprobeable paths end with one line on stderr and a documented exit code.
import { writeStderrLine } from '../common/visible-text.js';

export function fail(message: string, code: number): never {
  writeStderrLine(message);
  process.exit(code);
}
