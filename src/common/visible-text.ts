// What every human-facing output passes its lines through: a path or a name holds whatever
// bytes its owner chose, and a newline in one would split a line (a second line could read
// "SLOWDISK OK - ..."), a terminal escape would rewrite the screen. JSON output escapes them
// itself (JSON.stringify).

/** C0 controls, DEL and C1 controls (ESC among them, which starts every terminal sequence). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The text with each control character shown as an escape: `\n`, `\t`, `\x1b`, `\x9b`. */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => NAMED[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One line on stderr, as every warning and error is written: "slowdisk: ...". */
export function writeStderrLine(message: string): void {
  process.stderr.write(`slowdisk: ${visible(message)}\n`);
}
