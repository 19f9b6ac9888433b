// --textfile DIR: DIR/slowdisk.prom for node_exporter's textfile collector, rewritten every
// round. The metrics go to a temporary file in the same directory that is then renamed over
// slowdisk.prom, so a reader sees the old file or the new one, never a partial one; the
// collector reads *.prom only, so it never sees the temporary file.
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeStderrLine } from './visible-text.js';

export const TEXTFILE_NAME = 'slowdisk.prom';

/** How long stopping waits for a write in progress (the directory may be on a hung disk). */
const STOP_WAIT_MS = 2000;

export class TextfileWriter {
  readonly file: string;
  private readonly temporary: string;
  private writing: Promise<void> | null = null;
  /** A round came while a write was running: one more write follows it. */
  private again = false;
  private failing = false;

  constructor(
    dir: string,
    private readonly render: () => Promise<string>,
    name: string = TEXTFILE_NAME,
  ) {
    this.file = path.join(dir, name);
    this.temporary = path.join(dir, `.${name}.${process.pid}.tmp`);
  }

  /** The first write, at start: a directory that cannot take the file fails the run here. */
  async start(): Promise<void> {
    try {
      await this.replace();
    } catch (error) {
      throw new Error(`cannot write the textfile ${this.file}: ${(error as Error).message}`);
    }
  }

  /**
   * Writes the metrics as they are now. A write still running (a slow directory) is followed
   * by one more with the latest metrics, never by a queue; a failure is told once on stderr,
   * and the run goes on.
   */
  update(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    this.writing = this.replace()
      .then(() => {
        this.failing = false;
      })
      .catch((error: Error) => {
        if (!this.failing) writeStderrLine(`cannot write the textfile ${this.file}: ${error.message}`);
        this.failing = true;
      })
      .finally(() => {
        this.writing = null;
        if (this.again) {
          this.again = false;
          this.update();
        }
      });
  }

  /** Lets a write in progress finish, so that no temporary file is left behind. */
  async stop(): Promise<void> {
    this.again = false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.writing, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private async replace(): Promise<void> {
    const text = await this.render();
    try {
      await writeFile(this.temporary, text, { mode: 0o644 });
      await rename(this.temporary, this.file);
    } catch (error) {
      await rm(this.temporary, { force: true });
      throw error;
    }
  }
}
