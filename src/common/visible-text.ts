// What every human-facing output passes its lines through: a path or a name holds whatever
// bytes its owner chose, and a newline in one would split a line (a second line could read
// "SLOWDISK OK - ..."), a terminal escape would rewrite the screen. JSON output escapes them
// itself (JSON.stringify).

/**
 * C0 controls, DEL and C1 controls (ESC among them, which starts every terminal sequence), and
 * the bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which
 * reorder what follows them on the line: "/data/\u202Eatad" would read as another path; and
 * a path's bytes that are not UTF-8, which it holds as lone surrogates (path-text.ts).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A path's bytes that are not UTF-8 alone. */
const NOT_UTF8 = /[\udc80-\udcff]/gu;

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  // A lone U+DC80 to U+DCFF is a path's byte that is not UTF-8 (path-text.ts): shown as that byte.
  const byte = code >= 0xdc80 && code <= 0xdcff ? code - 0xdc00 : code;
  return NAMED[char] ?? (byte <= 0xff ? `\\x${byte.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** The text with each control character shown as an escape: `\n`, `\t`, `\x1b`, `\x9b`, `\u202e`. */
export function visible(text: string): string {
  return text.replace(CONTROL, escaped);
}

/**
 * The text with only its path bytes that are not UTF-8 shown as `\xff`, as visible() shows
 * them: for a Prometheus label value, which must be UTF-8 (the exposition format escapes the
 * rest itself), where such a byte would be written as U+FFFD.
 */
export function bytesShown(text: string): string {
  return text.replace(NOT_UTF8, escaped);
}

/** One line on stderr, as every warning and error is written: "slowdisk: ...". */
export function writeStderrLine(message: string): void {
  process.stderr.write(`slowdisk: ${visible(message)}\n`);
}
