// A path is bytes; a JS string is UTF-16 text. Node decodes argv as UTF-8, so a path that is
// not UTF-8 (a directory named "d\xff") would reach slowdisk as "d\ufffd", another directory.
// Such a path is read again from /proc/self/cmdline and kept as the native addon keeps it
// (native/path_text.h): each byte outside valid UTF-8 as the lone surrogate U+DC80 + (byte -
// 0x80), as Python's surrogateescape has it, so that the prober probes that very directory.
import { readFileSync } from 'node:fs';

/** The length of the valid UTF-8 sequence at bytes[i], or 0. */
function sequenceAt(bytes: Buffer, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  const [length, min] = lead >= 0xc2 && lead <= 0xdf ? [2, 0x80] : lead >= 0xe0 && lead <= 0xef ? [3, 0x800] : lead >= 0xf0 && lead <= 0xf4 ? [4, 0x10000] : [0, 0];
  if (length === 0 || i + length > bytes.length) return 0;
  let code = lead & (0xff >> (length + 1));
  for (let k = 1; k < length; k += 1) {
    const next = bytes[i + k]!;
    if ((next & 0xc0) !== 0x80) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  return code >= min && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? length : 0;
}

/** Bytes as text, each byte outside valid UTF-8 as U+DC80 + (byte - 0x80). */
export function pathText(bytes: Buffer): string {
  let text = '';
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceAt(bytes, i);
    if (length === 0) {
      text += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    } else {
      text += bytes.toString('utf8', i, i + length);
      i += length;
    }
  }
  return text;
}

/**
 * The command-line value `given` (as Node decoded it, U+FFFD in place of bytes that are not
 * UTF-8) as it really is: from the one argument of /proc/self/cmdline that reads so, itself
 * or after its `NAME=` or `--flag=`. null when no argument, or more than one, reads so.
 */
export function rawArgument(given: string): string | null {
  let cmdline: Buffer;
  try {
    cmdline = readFileSync('/proc/self/cmdline');
  } catch {
    return null;
  }
  const found = new Set<string>();
  for (let start = 0; start < cmdline.length; ) {
    const end = cmdline.indexOf(0, start) < 0 ? cmdline.length : cmdline.indexOf(0, start);
    const arg = cmdline.subarray(start, end);
    start = end + 1;
    const lossy = arg.toString('utf8');
    const text = pathText(arg);
    if (lossy === given) found.add(text);
    else if (lossy.endsWith(`=${given}`) && !lossy.slice(0, -given.length - 1).includes('\ufffd')) found.add(text.slice(text.indexOf('=') + 1));
  }
  return found.size === 1 ? [...found][0]! : null;
}

/** A byte kept as a lone surrogate (pathText): what node:fs would write as U+FFFD. */
const KEPT_BYTE = /[\udc80-\udcff]/gu;
const HAS_KEPT_BYTE = /[\udc80-\udcff]/u;

/** The path's bytes: the inverse of pathText. */
export function pathBytes(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const match of text.matchAll(KEPT_BYTE)) {
    parts.push(Buffer.from(text.slice(from, match.index), 'utf8'), Buffer.from([match[0].charCodeAt(0) - 0xdc00]));
    from = match.index + 1;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/**
 * What node:fs is given for the path `text`: the text itself when it is all UTF-8, else its
 * bytes, so that a file named with 0xff is that file and not one named U+FFFD.
 */
export function fsPath(text: string): string | Buffer {
  return HAS_KEPT_BYTE.test(text) ? pathBytes(text) : text;
}

/**
 * A node:fs error about the path `text` given as bytes: its `path` and message name the
 * path as slowdisk holds it (Node decoded the bytes, each 0xff as U+FFFD), so that what shows
 * it (visible-text.ts) shows the byte. Other errors are left as they are.
 */
export function withTextPath<E>(error: E, text: string): E {
  const e = error as NodeJS.ErrnoException;
  if (!e || typeof e !== 'object' || typeof e.path !== 'string' || fsPath(text) === text) return error;
  const lossy = pathBytes(text).toString('utf8');
  if (e.path === lossy) {
    e.path = text;
    e.message = e.message.replace(`'${lossy}'`, `'${text}'`);
  }
  return error;
}
