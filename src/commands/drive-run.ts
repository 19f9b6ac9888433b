// The drives' side of watch and check: chooses the drives, opens their history, samples the
// kernel's counters every 15 s, and reports each drive's verdict against its peers.
import path from 'node:path';
import { allDisks, readDeviceClass, type DiskSelection } from '../drives/block-disks.js';
import { DriveMonitor, KERNEL_SOURCE, type DriveJudgement, type DriveSource } from '../drives/drive-monitor.js';
import { DEFAULT_DRIVE_PARAMS, type DriveParams } from '../drives/drive-params.js';
import { emptyHistory } from '../drives/history.js';
import { FileStateStore, STATE_FILE, StateStoreError, type OpenedState, type StateStore } from '../drives/state-file.js';
import { deadlineText, withinDeadline } from '../output/deadline.js';
import type { OutputWriter } from '../output/output-writer.js';
import { stateOpenerOf } from '../output/written-state.js';
import { DEFAULT_PEER_PARAMS, type PeerParams } from '../drives/peer-params.js';
import { groupMinimum } from '../drives/peer-verdict.js';
import { driveJson, driveLine, drivesJson, driveSummaryLine, isRecovered, isSlow, type DriveContext } from '../formats/drive-verdicts.js';
import type { DriveMetrics } from '../prometheus/drive-metrics.js';
import { TextfileWriter } from '../prometheus/textfile.js';
import { visible, writeStderrLine } from '../common/visible-text.js';
import type { Registry } from 'prom-client';
import type { DriveRequest } from '../drives/drive-params.js';
import { EXIT_OK, EXIT_UNKNOWN, EXIT_WARNING } from '../verdict/exit-codes.js';

/** Thrown at start: one line for stderr, exit UNKNOWN. */
export class DriveStartError extends Error {}

export interface DriveRunOptions {
  json: boolean;
  source?: DriveSource;
  clock?: () => number;
  sysRoot?: string;
  params?: DriveParams;
  peer?: PeerParams;
  /** The output writer: the history and the textfile are written by it (else the history in this process). */
  output?: OutputWriter;
  /** node_exporter's textfile directory: DIR/slowdisk-drives.prom after every sample (needs `output`). */
  textfile?: string;
  /** Keep the drives' gauges for a /metrics server (--listen) even without a textfile. */
  serveMetrics?: boolean;
  /** Where a problem found while running goes (stderr). */
  warn?: (line: string) => void;
  write?: (text: string) => void;
}

/** The whole disks of /sys/block that /proc/diskstats counts, and the kinds left out. */
function wholeDisksIn(source: DriveSource, sysRoot?: string): DiskSelection {
  const present = new Set([...source.diskstats().values()].map((counters) => counters.name));
  const found = allDisks(sysRoot);
  return { devices: found.devices.filter((name) => present.has(name)), excluded: found.excluded };
}

export class DriveRun {
  private timer: NodeJS.Timeout | null = null;
  /** The last save's error, if the last save failed. */
  saveError: string | null = null;
  private saveErrorKind: string | null = null;
  private savedAtMs: number | null = null;
  private saving: Promise<void> | null = null;
  private shownSlow = new Set<string>();
  private reported = false;
  private readonly warn: (line: string) => void;
  private readonly write: (text: string) => void;

  private constructor(
    private readonly monitor: DriveMonitor,
    /** null when the history could not be read in time: nothing is saved then. */
    private readonly store: StateStore | null,
    private readonly context: DriveContext,
    private readonly options: DriveRunOptions,
    private readonly params: DriveParams,
    /** --all-devices: looks for drives that appeared, before each sample. */
    private readonly rescan: (() => void) | null,
    private readonly metrics: { gauges: DriveMetrics; textfile: TextfileWriter | null } | null,
  ) {
    this.warn = options.warn ?? writeStderrLine;
    this.write = options.write ?? ((text) => process.stdout.write(text));
  }

  /** Chooses the drives, opens the history (reporting a corrupt one), takes the first sample and writes the first textfile. */
  static async start(request: DriveRequest, options: DriveRunOptions): Promise<DriveRun> {
    const source = options.source ?? KERNEL_SOURCE;
    const peer = options.peer ?? DEFAULT_PEER_PARAMS;
    const params = options.params ?? DEFAULT_DRIVE_PARAMS;
    let devices: string[];
    let excluded: Record<string, string[]> = {};
    if (request.devices === 'all') {
      ({ devices, excluded } = wholeDisksIn(source, options.sysRoot));
    } else {
      devices = request.devices;
      const present = new Set([...source.diskstats().values()].map((counters) => counters.name));
      const missing = devices.filter((name) => !present.has(name));
      if (missing.length > 0) throw new DriveStartError(`no block device ${missing.join(', ')} in /proc/diskstats`);
    }
    const needed = groupMinimum(peer);
    const classOf = (name: string) => (options.sysRoot === undefined ? source.deviceClass(name) : readDeviceClass(name, options.sysRoot));
    const counts = new Map<string, number>();
    for (const peerClass of devices.map(classOf)) counts.set(peerClass, (counts.get(peerClass) ?? 0) + 1);
    if (![...counts.values()].some((count) => count >= needed)) {
      const which = devices.length === 0 ? 'none' : [...counts].map(([peerClass, count]) => `${count} ${peerClass}`).join(', ');
      throw new DriveStartError(
        `a drive is judged against at least ${peer.minPeers} peers of its class: ${needed} drives of one class are needed, ${request.devices === 'all' ? 'the host has' : 'given'} ${devices.length} (${which})`,
      );
    }
    const sourceWithClasses: DriveSource = { ...source, deviceClass: classOf };
    const open = options.output ? stateOpenerOf(options.output) : (dir: string, now: () => number) => FileStateStore.open(dir, now);
    const opening = open(request.stateDir, options.clock ?? Date.now);
    let opened: OpenedState | null = null;
    if ((await withinDeadline(opening)) === 'done') {
      try {
        opened = await opening;
      } catch (error) {
        if (error instanceof StateStoreError) throw new DriveStartError(error.message);
        throw error;
      }
    }
    const stateDir = opened?.store.dir ?? path.resolve(request.stateDir);
    const monitor = new DriveMonitor(devices, opened?.history ?? emptyHistory(), sourceWithClasses, options.clock ?? Date.now, peer, params);
    const rescan = request.devices === 'all' ? () => monitor.addDevices(wholeDisksIn(source, options.sysRoot).devices) : null;
    // Imported only with metrics asked for: prom-client is as much memory as the rest of a run.
    const driveMetrics = options.textfile === undefined && !options.serveMetrics ? null : await import('../prometheus/drive-metrics.js');
    const gauges = driveMetrics && new driveMetrics.DriveMetrics();
    const output = options.output;
    if (options.textfile !== undefined && !output) throw new Error('a textfile is written by the output writer');
    const textfile =
      driveMetrics && gauges && options.textfile !== undefined
        ? new TextfileWriter(output!, options.textfile, () => gauges.registry.metrics(), driveMetrics.DRIVES_TEXTFILE_NAME)
        : null;
    const metrics = gauges && { gauges, textfile };
    const run = new DriveRun(monitor, opened?.store ?? null, { stateDir, excluded, peer }, options, params, rescan, metrics);
    if (opened === null) {
      // A history that cannot be read is never saved over: it would lose what it holds.
      run.failedSave(`the drive history ${path.join(stateDir, STATE_FILE)} was not read within ${deadlineText()}: its disk may hang; this run's history is not saved`);
    }
    for (const problem of opened?.problems ?? []) run.warn(problem);
    run.sample();
    await run.settled();
    if (metrics) {
      metrics.gauges.update(run.judge(), run.clock());
      try {
        await metrics.textfile?.start();
      } catch (error) {
        await opened?.store.close();
        throw new DriveStartError((error as Error).message);
      }
    }
    return run;
  }

  /** The drives' gauges, for a /metrics server; null unless asked for (textfile or serveMetrics). */
  get registry(): Registry | null {
    return this.metrics?.gauges.registry ?? null;
  }

  get devices(): readonly string[] {
    return this.monitor.devices;
  }

  private sampleDrives(): void {
    const { clockJump } = this.monitor.sample();
    if (clockJump !== undefined) this.warn(clockJump);
  }

  /** One sample, saved when the last save is saveIntervalMs old (or failed) and none is in flight. */
  sample(): void {
    this.rescan?.();
    this.sampleDrives();
    const now = this.clock();
    const due = this.savedAtMs === null || this.saveError !== null || now - this.savedAtMs >= this.params.saveIntervalMs;
    if (due && this.saving === null) {
      this.saving = this.save(now).finally(() => {
        this.saving = null;
      });
    }
  }

  /** Resolves once no save is in flight. */
  async settled(): Promise<void> {
    await this.saving;
  }

  /** A failed save is reported once (until one succeeds) and tried again at the next sample. */
  private async save(now: number): Promise<void> {
    if (!this.store) return;
    const file = this.store.file;
    const saving = this.store.save(this.monitor.history);
    void withinDeadline(saving).then((outcome) => {
      if (outcome === 'late') this.failedSave(`the drive history ${file} was not saved within ${deadlineText()}: its disk may hang`);
    });
    try {
      await saving;
      this.saveError = null;
      this.saveErrorKind = null;
      this.savedAtMs = now;
    } catch (error) {
      if (!(error instanceof StateStoreError)) throw error;
      this.failedSave(error.message, `save ${error.code ?? error.message}`);
    }
  }

  /** `kind`: the same failure again (ENOSPC on another temporary file) is not told again. */
  failedSave(message: string, kind: string = message): void {
    if (this.saveErrorKind !== kind) this.warn(message);
    this.saveError = message;
    this.saveErrorKind = kind;
  }

  /** The last save, waited for at most the output deadline: a state directory on a hung disk does not hold the exit. False when it did not finish. */
  private async finalSave(): Promise<boolean> {
    if (!this.store) return false;
    const save = (async () => {
      await this.saving;
      await this.save(this.clock());
    })();
    if ((await withinDeadline(save)) === 'done') return true;
    this.failedSave(`the drive history ${this.store.file} was not saved within ${deadlineText()}: its disk may hang`);
    return false;
  }

  /** What this run did not write: "the drive history PATH", its textfile. */
  notWritten(): string[] {
    const history = this.saveError === null ? [] : [`the drive history ${path.join(this.context.stateDir, STATE_FILE)}`];
    const textfile = this.metrics?.textfile?.notWritten();
    return textfile ? [...history, textfile] : history;
  }

  clock(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Samples every sampleIntervalMs (and updates the textfile); `onSample` runs after each. */
  every(onSample: () => void): void {
    this.timer = setInterval(() => {
      this.sample();
      if (this.metrics) {
        this.metrics.gauges.update(this.judge(), this.clock());
        this.metrics.textfile?.update();
      }
      onSample();
    }, this.params.sampleIntervalMs);
  }

  judge(): DriveJudgement {
    return this.monitor.judge();
  }

  /** watch: prints the drives that became slow (all of them the first time) and the summary when the set changed. */
  reportChanges(): void {
    const judgement = this.judge();
    const slow = new Set(judgement.drives.filter(isSlow).map((drive) => drive.device));
    const first = !this.reported;
    this.reported = true;
    const changed = first || slow.size !== this.shownSlow.size || [...slow].some((device) => !this.shownSlow.has(device));
    if (!changed) return;
    const now = this.clock();
    const drives = judgement.drives.filter((drive) => first || slow.has(drive.device) !== this.shownSlow.has(drive.device));
    this.shownSlow = slow;
    this.print(judgement, drives, now);
  }

  /** The last sample, the final textfile, and the lock released; returns the judgement, for report(). */
  async finish(): Promise<DriveJudgement> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.rescan?.();
    this.sampleDrives();
    const judgement = this.judge();
    this.metrics?.gauges.update(judgement, this.clock());
    // The final save and textfile side by side, each bounded by the output deadline. A hung
    // directory would hang the lock's removal too: the lock is left, and the next run takes
    // it over, its process being gone.
    const saved = (async () => {
      if (this.store && (await this.finalSave())) await withinDeadline(this.store.close());
    })();
    await Promise.all([saved, this.metrics?.textfile?.stop()]);
    return judgement;
  }

  /** Every drive judged slow and the summary (JSON: every drive). */
  report(judgement: DriveJudgement): void {
    this.print(judgement, judgement.drives, this.clock());
  }

  /** check's exit code for the drives: WARNING when one is slow now; UNKNOWN when the history could not be saved. A class too small to judge changes nothing while another can be judged. */
  exitCode(judgement: DriveJudgement): number {
    if (this.saveError !== null) return EXIT_UNKNOWN;
    return judgement.drives.some(isSlow) ? EXIT_WARNING : EXIT_OK;
  }

  private print(judgement: DriveJudgement, drives: DriveJudgement['drives'], now: number): void {
    if (this.options.json) {
      const lines = [...drives.map((drive) => driveJson(drive, now)), drivesJson(judgement, this.context, now)];
      this.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      return;
    }
    const slowLines = drives.filter((drive) => isSlow(drive) || isRecovered(drive)).map(driveLine);
    this.write([...slowLines, driveSummaryLine(judgement, this.context)].map((line) => `${visible(line)}\n`).join(''));
  }
}
