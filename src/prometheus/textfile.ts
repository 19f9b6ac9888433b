// --textfile DIR: DIR/slowdisk.prom for node_exporter's textfile collector, rewritten every
// round. A helper process (the prober in a probe run, the output writer for the drives alone)
// writes the metrics to a temporary file of an unguessable name in the same directory, then
// renames it over slowdisk.prom, so that a reader sees the old file or the new one, never a
// partial one; the collector reads *.prom only, so it never sees the temporary file. A
// directory on a hung disk stalls that helper's write, never the run.
import path from 'node:path';
import { deadlineText, withinDeadline } from '../output/deadline.js';
import { writeStderrLine } from '../common/visible-text.js';

export const TEXTFILE_NAME = 'slowdisk.prom';

/** A helper process that puts a file in place atomically: the CLI makes no syscall on an output's path. */
export interface FileReplacer {
  replaceFile(dir: string, name: string, text: string, mode: number): Promise<void>;
}

export class TextfileWriter {
  readonly file: string;
  private readonly dir: string;
  private readonly name: string;
  private writing: Promise<void> | null = null;
  /** A round came while a write was running: one more write follows it. */
  private again = false;
  private failing = false;
  /** The latest write was confirmed. */
  private written = false;
  /** A write has been running past the deadline. */
  private late = false;

  constructor(
    private readonly writer: FileReplacer,
    dir: string,
    private readonly render: () => Promise<string>,
    name: string = TEXTFILE_NAME,
  ) {
    this.dir = dir;
    this.name = name;
    this.file = path.join(dir, name);
  }

  /**
   * The first write, at start: a directory that cannot take the file fails the run here; one
   * whose write is not confirmed within the deadline (a hung disk) is told, and the run goes on.
   */
  async start(): Promise<void> {
    const write = this.replace();
    this.writing = write.catch(() => {}).finally(() => (this.writing = null));
    if ((await withinDeadline(write)) === 'late') {
      this.tellLate();
      return;
    }
    try {
      await write;
    } catch (error) {
      throw new Error(`cannot write the textfile ${this.file}: ${(error as Error).message}`);
    }
  }

  /**
   * Writes the metrics as they are now. A write still running (a slow directory) is followed
   * by one more with the latest metrics, never by a queue; a failure, or a write not confirmed
   * within the deadline, is told once on stderr, and the run goes on.
   */
  update(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    const write = this.replace();
    void withinDeadline(write).then((outcome) => (outcome === 'late' ? this.tellLate() : undefined));
    this.writing = write
      .then(() => {
        this.failing = false;
      })
      .catch((error: Error) => {
        this.tell(`cannot write the textfile ${this.file}: ${error.message}`);
      })
      .finally(() => {
        this.writing = null;
        if (this.again) {
          this.again = false;
          this.update();
        }
      });
  }

  /** The final write, after the one in progress; neither is waited for past the deadline, nor at all once one was late. */
  async stop(): Promise<void> {
    this.again = false;
    if (this.late) return;
    if (this.writing && (await withinDeadline(this.writing)) === 'late') {
      this.tellLate();
      return;
    }
    const write = this.replace();
    if ((await withinDeadline(write)) === 'late') {
      this.tellLate();
      return;
    }
    await write.catch((error: Error) => this.tell(`cannot write the textfile ${this.file}: ${error.message}`));
  }

  /** "the textfile PATH" when its latest content was not written. */
  notWritten(): string | null {
    return this.written ? null : `the textfile ${this.file}`;
  }

  private tellLate(): void {
    if (this.written) return;
    this.late = true;
    this.tell(`cannot write the textfile ${this.file}: not written within ${deadlineText()}, its disk may hang; the run goes on`);
  }

  private tell(line: string): void {
    if (!this.failing) writeStderrLine(line);
    this.failing = true;
  }

  private async replace(): Promise<void> {
    const text = await this.render();
    this.written = false;
    await this.writer.replaceFile(this.dir, this.name, text, 0o644);
    this.written = true;
    this.late = false;
  }
}
