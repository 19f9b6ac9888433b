// A file slowdisk creates and then writes to as it goes (a trace): created exclusively, never
// over an existing entry, and written through an async stream, in order.
import type { WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createExclusive } from '../common/exclusive-file.js';

export class AppendedFile {
  private writeError: Error | null = null;

  private constructor(
    private readonly stream: WriteStream,
    onError: (error: Error) => void,
  ) {
    stream.on('error', (error) => {
      if (this.writeError === null) onError(error);
      this.writeError ??= error;
    });
  }

  /** Rejects with EEXIST when anything (a file, a symlink, a FIFO) is at `file` already; `onError` is told the first write error. */
  static async create(file: string, mode: number, onError: (error: Error) => void = () => {}): Promise<AppendedFile> {
    return new AppendedFile((await createExclusive(file, mode)).createWriteStream(), onError);
  }

  /** Later writes are dropped after a write error (ENOSPC, EIO). */
  write(text: string): void {
    if (this.writeError === null) this.stream.write(text);
  }

  /** Flushes and closes the file; rejects with the first write error, if any. */
  async close(): Promise<void> {
    this.stream.end();
    await finished(this.stream).catch((error: Error) => (this.writeError ??= error));
    if (this.writeError) throw this.writeError;
  }
}
