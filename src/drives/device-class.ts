// A drive's device class, from what sysfs says of it: the drives of a host are judged only
// against drives of the same class, so that NVMe drives beside SATA or SAS ones (a TiKV node's
// Raft log drives beside its data drives) neither hide the slower class nor make all of it
// look slow. HDFS's outlier detector groups volumes by storage type for the same reason.

/** What sysfs says of one whole disk; null where a file is missing. */
export interface DeviceAttributes {
  /** The kernel name (`nvme0n1`, `sdb`). */
  name: string;
  /** The device's real sysfs path (/sys/block/NAME resolved), which names the bus it hangs on. */
  devicePath: string | null;
  /** `queue/rotational`: 1 for a spinning disk, 0 for flash. */
  rotational: string | null;
  /** `device/transport` (NVMe: pcie, tcp, rdma, fc). */
  transport: string | null;
  /** `device/vendor`: libata's SCSI disks say `ATA`. */
  vendor: string | null;
}

/** The bus a drive hangs on, from its name, its transport file and its sysfs path. */
function busOf(attributes: DeviceAttributes): string {
  const where = attributes.devicePath ?? '';
  const transport = attributes.transport?.trim().toLowerCase() ?? '';
  if (/^nvme\d/.test(attributes.name) || where.includes('/nvme/')) return transport === '' || transport === 'pcie' ? 'nvme' : `nvme_${transport}`;
  if (/\/ata\d+\//.test(where) || attributes.vendor?.trim() === 'ATA') return 'sata';
  if (/\/(end_device-|expander-)|\/sas_/.test(where)) return 'sas';
  if (/\/usb\d*\//.test(where)) return 'usb';
  if (/\/virtio\d+\//.test(where)) return 'virtio';
  if (/^mmcblk\d/.test(attributes.name)) return 'mmc';
  if (where.includes('/virtual/')) return 'virtual';
  return 'other';
}

/**
 * The class key, `<bus>-<media>`: `nvme-ssd`, `sata-ssd`, `sata-hdd`, `sas-hdd`, ... (media
 * `unknown` when sysfs does not say). The model is not part of it: a host's drives of one kind
 * often span two models after replacements, and splitting them would leave groups too small
 * to judge.
 */
export function deviceClass(attributes: DeviceAttributes): string {
  const rotational = attributes.rotational?.trim();
  const media = rotational === '1' ? 'hdd' : rotational === '0' ? 'ssd' : 'unknown';
  return `${busOf(attributes)}-${media}`;
}
