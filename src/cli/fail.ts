// Bad input and unprobeable paths end with one line on stderr and a documented exit code.
export function fail(message: string, code: number): never {
  process.stderr.write(`slowdisk: ${message}\n`);
  process.exit(code);
}
