// --all-devices, --devices and --state-dir on watch and check: judge every drive of the host
// against its peers of the same class from the kernel's counters, with a history kept between runs.
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { kernelName } from '../drives/block-disks.js';
import { DEFAULT_STATE_DIR, type DriveRequest } from '../drives/drive-params.js';
import { HELP_HEADINGS } from './param-options.js';
import { rawPath } from './options.js';

export interface DriveOptionValues {
  allDevices?: boolean;
  devices?: string[];
  stateDir?: string;
}

const DEVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:!+-]*$/;

function deviceList(value: string): string[] {
  const names = value.split(',').map((name) => kernelName(name.trim()));
  for (const name of names) {
    if (!DEVICE_NAME.test(name)) throw new InvalidArgumentError(`expected kernel device names separated by commas (sda,sdb or /dev/sda,/dev/sdb), got '${value}'`);
  }
  if (new Set(names).size !== names.length) throw new InvalidArgumentError(`a device is named twice in '${value}'`);
  return names;
}

export function addDriveOptions(command: Command): Command {
  return command
    .optionsGroup(HELP_HEADINGS.drives)
    .option(
      '--all-devices',
      "judge every whole disk of the host against the others of its class (NVMe, SATA, SAS...; SSD or HDD) from the kernel's counters, over days (not loop, ram, zram, dm, md, sr: name those with --devices)",
    )
    .option('--devices <names>', 'judge these drives against each other, by class, instead, e.g. sda,sdb,sdc,sdd (at least 4 of one class)', deviceList)
    .option(
      '--state-dir <dir>',
      `where the drives' history (default: ${DEFAULT_STATE_DIR}) and each probed path's filesystem are kept between runs: a path on another filesystem than at the last run is WARNING`,
    );
}

/** The drives to judge; null when neither --all-devices nor --devices is given. */
export function driveRequestFrom(values: DriveOptionValues, cwd: string = process.cwd()): DriveRequest | null {
  if (values.allDevices && values.devices) throw new InvalidArgumentError('--all-devices and --devices both choose the drives: give one');
  if (!values.allDevices && !values.devices) return null;
  return { devices: values.devices ?? 'all', stateDir: stateDirFrom(values, cwd) ?? DEFAULT_STATE_DIR };
}

/** --state-dir, resolved; undefined when not given. */
export function stateDirFrom(values: DriveOptionValues, cwd: string = process.cwd()): string | undefined {
  if (values.stateDir === undefined) return undefined;
  if (values.stateDir === '') throw new InvalidArgumentError('--state-dir is empty');
  return path.resolve(cwd, rawPath('--state-dir', values.stateDir));
}
