# shellcheck shell=bash disable=SC2034  # variables set here are for the sourcing script
# Sourced by every script of the fault-injection kit. A disk is named by the
# directory it is mounted on; this file turns that directory into the things
# the kernel wants (MAJ:MIN, the loop device) and keeps the state that
# make-disk leaves behind for its counterparts.
#
# A script sets USAGE, sources this file, then calls fault_begin "$@". A script
# that can act on any mount sets FAULT_FORCE_OK=1 first: it then accepts
# --force-real-disk, and without it acts only on a disk make-disk made.

# The kit matches the error messages of fsfreeze and dd; they must not be translated.
export LC_ALL=C

FAULT_NAME=$(basename "$0")
FAULT_HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
FAULT_STATE_DIR=/run/slowdisk-fault
FAULT_BLKIO=/sys/fs/cgroup/blkio

fault_die() {
  printf '%s: %s\n' "$FAULT_NAME" "$*" >&2
  exit 1
}

FAULT_FORCE=0

# Handles --help anywhere on the command line, notes --force-real-disk where the
# script takes it, then insists on root: every script touches mounts, loop
# devices or cgroups.
fault_begin() {
  local arg
  for arg in "$@"; do
    if [[ $arg == -h || $arg == --help ]]; then
      printf '%s\n' "$USAGE"
      exit 0
    fi
    if [[ $arg == --force-real-disk && ${FAULT_FORCE_OK:-0} == 1 ]]; then
      FAULT_FORCE=1
    fi
  done
  [[ $EUID -eq 0 ]] || fault_die "must run as root"
}

# Sets dir to the absolute form of DIR for the scripts whose only argument it is
# (beside --force-real-disk, where fault_begin took it).
fault_one_dir() {
  local args=() arg
  for arg in "$@"; do
    [[ $arg == --force-real-disk && $FAULT_FORCE == 1 ]] || args+=("$arg")
  done
  [[ ${#args[@]} -eq 1 && ${args[0]} != -* ]] || fault_die "expected exactly one DIR (see --help)"
  dir=$(realpath -m -- "${args[0]}")
}

# mountinfo octal-escapes these four characters in paths; escaping ours the
# same way is simpler than unescaping every line.
fault_escape_path() {
  local p=$1
  p=${p//\\/\\134}
  p=${p// /\\040}
  p=${p//$'\t'/\\011}
  p=${p//$'\n'/\\012}
  printf '%s' "$p"
}

# Sets mount_majmin and mount_options from the topmost mount at DIR (the one
# mounted last, which is the one paths resolve to); fails if DIR is not a mount
# point. The value is passed through the environment because awk -v would
# itself interpret the backslash escapes.
fault_read_mount() {
  local line
  line=$(MOUNT_POINT=$(fault_escape_path "$1") awk \
    '$5 == ENVIRON["MOUNT_POINT"] { line = $0 } END { if (line == "") exit 1; print line }' \
    /proc/self/mountinfo) || return 1
  read -r _ _ mount_majmin _ _ mount_options _ <<<"$line"
}

# Guards the scripts that act on whatever filesystem is at DIR: acting on the
# filesystem that merely contains DIR would freeze or fill the host, and so
# would acting on the root filesystem, under any of its mount points (a bind
# mount of /), even with --force-real-disk: a frozen / cannot run thaw.
fault_require_mount() {
  fault_read_mount "$1" || fault_die "$1 is not a mount point"
  local root_majmin
  root_majmin=$(awk '$5 == "/" { majmin = $3 } END { print majmin }' /proc/self/mountinfo)
  [[ $1 != / && $mount_majmin != "$root_majmin" ]] ||
    fault_die "refusing to inject faults into the root filesystem ($mount_majmin, mounted at $1)"
  fault_require_kit_disk "$1"
  # fault_require_kit_disk read other mounts: the caller wants DIR's.
  fault_read_mount "$1"
}

# Refuses, saying why, unless the disk at DIR is the one make-disk made there:
# its state names a loop device that still serves make-disk's backing file, and
# what is mounted at DIR (if anything) is that loop device. A real disk (/data,
# a bind mount of /) has no such state. --force-real-disk lifts the check.
fault_require_kit_disk() {
  [[ $FAULT_FORCE == 0 ]] || return 0
  local why='' loop_dev=''
  if ! fault_state_load "$1"; then
    why="no disk was made there by make-disk"
  elif [[ -z ${state_loop:-} || -z ${state_backing:-} ]] ||
    [[ $(cat "/sys/class/block/$(basename "$state_loop")/loop/backing_file" 2>/dev/null) != "$state_backing" ]]; then
    why="the loop device make-disk made for it is gone"
  else
    loop_dev=$(loop_majmin "$state_loop")
    if fault_read_mount "$1" && [[ $mount_majmin != "$loop_dev" ]]; then
      why="what is mounted there ($mount_majmin) is not the disk make-disk made ($state_loop, $loop_dev)"
    fi
  fi
  [[ -z $why ]] ||
    fault_die "refusing $1: $why, so it may be a real disk; give --force-real-disk to act on it all the same"
}

fault_state_file() {
  printf '%s/%s.state' "$FAULT_STATE_DIR" "$(printf '%s' "$1" | sha256sum | cut -c1-16)"
}

# Appends KEY=VALUE to DIR's state; make-disk records each step as soon as it
# is done so that remove-disk can undo a disk that was left half-made.
fault_state_set() {
  # -p: two disks made at once both find the directory missing; one of them makes it.
  [[ -d $FAULT_STATE_DIR ]] || mkdir -p -m 700 "$FAULT_STATE_DIR"
  printf 'state_%s=%q\n' "$2" "$3" >>"$(fault_state_file "$1")"
}

# Sets the state_* variables recorded for DIR; fails if no disk was made there.
fault_state_load() {
  local file
  file=$(fault_state_file "$1")
  unset state_created_dir state_temp_dir state_tmpfs state_backing state_loop state_fs state_load_pids state_delayed state_delayfs_pid
  [[ -f $file ]] || return 1
  # shellcheck source=/dev/null
  source "$file"
}

fault_require_state() {
  fault_state_load "$1" || fault_die "no disk was made at $1 (by make-disk)"
}

# For the scripts that need the filesystem make-disk made, not just its parts.
fault_require_made_disk() {
  fault_require_state "$1"
  [[ -n ${state_fs:-} ]] || fault_die "the disk at $1 is half-made; remove it with remove-disk"
}

# Prints where write-errors keeps its filler: beside the backing file, on the
# tmpfs that make-disk --backing-tmpfs made for it. Needs DIR's state loaded.
fault_tmpfs_filler() {
  [[ -n ${state_tmpfs:-} ]] || fault_die "$1 was not made with make-disk --backing-tmpfs"
  printf '%s/filler' "$state_tmpfs"
}

# Whether the delay layer make-disk --backing-delayed started runs still: its
# recorded pid runs the program it built, not whatever took the pid since.
# Needs DIR's state loaded.
fault_delay_layer_running() {
  [[ -n ${state_delayfs_pid:-} ]] &&
    [[ $(readlink "/proc/$state_delayfs_pid/exe" 2>/dev/null) == "$state_temp_dir/delayfs" ]]
}

# Sets the delay layer of the disk at DIR (made with make-disk --backing-delayed)
# to hold PPM millionths of its flushes for US microseconds each, and tells it;
# returns 1, changing nothing, when it holds just that already.
fault_set_delay() {
  fault_require_kit_disk "$1"
  [[ -n ${state_delayed:-} ]] || fault_die "$1 was not made with make-disk --backing-delayed"
  fault_delay_layer_running || fault_die "the delay layer of $1 (pid $state_delayfs_pid) is not running"
  [[ $(cat "$state_temp_dir/delay") != "$2 $3" ]] || return 1
  printf '%s %s\n' "$2" "$3" >"$state_temp_dir/delay"
  kill -USR1 "$state_delayfs_pid"
}

loop_majmin() {
  cat "/sys/class/block/$(basename "$1")/dev"
}

# MAJ:MIN of the disk at DIR: from the mount table while it is mounted, else
# from the loop device make-disk recorded, so that a vanished disk can still be
# throttled and removed. Only a disk make-disk made, unless --force-real-disk.
fault_disk_majmin() {
  fault_require_kit_disk "$1"
  if fault_read_mount "$1"; then
    [[ $mount_majmin != 0:* ]] || fault_die "$1 is not on a block device (MAJ:MIN $mount_majmin)"
    printf '%s' "$mount_majmin"
  elif fault_state_load "$1" && [[ -n ${state_loop:-} ]]; then
    loop_majmin "$state_loop"
  else
    fault_die "$1 is not a mount point and no disk was made there"
  fi
}

# Prints the IOPS limit of MAJ:MIN in blkio.throttle.KIND_iops_device (KIND is
# read or write), or nothing if there is none.
fault_throttle_of() {
  awk -v majmin="$1" '$1 == majmin { print $2 }' "$FAULT_BLKIO/blkio.throttle.$2_iops_device"
}

# Writing a limit of 0 deletes the rule.
fault_set_throttle() {
  printf '%s %s\n' "$1" "$3" >"$FAULT_BLKIO/blkio.throttle.$2_iops_device"
}

# Parses DIR and --read-iops N / --write-iops N (at least one, each a positive
# integer) into dir and iops[read], iops[write].
fault_iops_args() {
  dir=''
  declare -gA iops=([read]='' [write]='')
  while [[ $# -gt 0 ]]; do
    case $1 in
      --read-iops) iops[read]=${2:-}; shift 2 || fault_die "--read-iops needs a value" ;;
      --write-iops) iops[write]=${2:-}; shift 2 || fault_die "--write-iops needs a value" ;;
      --force-real-disk) shift ;;
      -*) fault_die "unknown option $1 (see --help)" ;;
      *) [[ -z $dir ]] || fault_die "expected exactly one DIR (see --help)"; dir=$(realpath -m -- "$1"); shift ;;
    esac
  done
  [[ -n $dir ]] || fault_die "expected exactly one DIR (see --help)"
  [[ -n ${iops[read]}${iops[write]} ]] || fault_die "give --read-iops N and/or --write-iops N"
  local kind
  for kind in read write; do
    [[ -z ${iops[$kind]} || ${iops[$kind]} =~ ^[1-9][0-9]*$ ]] ||
      fault_die "--$kind-iops must be a positive integer, not '${iops[$kind]}' (un$FAULT_NAME lifts a limit)"
  done
}

# Caps MAJ:MIN at iops[read] and iops[write] in the root group; says what
# changed of WHAT.
fault_cap_iops() {
  local majmin=$1 what=$2 changed='' unchanged='' kind limit
  for kind in read write; do
    limit=${iops[$kind]}
    [[ -n $limit ]] || continue
    if [[ $(fault_throttle_of "$majmin" "$kind") == "$limit" ]]; then
      unchanged+="${unchanged:+, }$kind $limit IOPS"
    else
      fault_set_throttle "$majmin" "$kind" "$limit"
      changed+="${changed:+, }$kind $limit IOPS"
    fi
  done
  if [[ -z $changed ]]; then
    echo "$what is already capped at $unchanged; nothing to do"
  else
    echo "capped $what at $changed"
  fi
}

# Lifts both caps of MAJ:MIN; says so of WHAT.
fault_lift_iops() {
  local majmin=$1 what=$2 lifted=0 kind
  for kind in read write; do
    if [[ -n $(fault_throttle_of "$majmin" "$kind") ]]; then
      fault_set_throttle "$majmin" "$kind" 0
      lifted=1
    fi
  done
  if [[ $lifted == 1 ]]; then
    echo "lifted the caps of $what"
  else
    echo "$what is not capped; nothing to do"
  fi
}

# The writers load started on DIR that still run: a recorded pid counts only
# while it is still the loop load started for one of DIR's load files, never
# a process that has taken the number since.
fault_load_running() {
  local pid running=''
  fault_state_load "$1" || return 0
  for pid in ${state_load_pids:-}; do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$1/.slowdisk-fault-load-"; then
      running+="${running:+ }$pid"
    fi
  done
  printf '%s' "$running"
}

# Ends the writers of load on DIR, each with its dd (by process group), and
# deletes their files.
fault_unload() {
  local pid
  for pid in $(fault_load_running "$1"); do
    kill -KILL -- "-$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  done
  rm -f -- "$1"/.slowdisk-fault-load-*
  fault_state_set "$1" load_pids ''
}

# The mount point of the disk DIR's backing file lives on: a disk make-disk
# made (make-disk DIR --backing-dir MEDIA), whose device serves DIR's device.
fault_media_of() {
  fault_require_state "$1"
  [[ -n ${state_backing:-} ]] || fault_die "the disk at $1 is half-made; remove it with remove-disk"
  local media
  media=$(findmnt -n -o TARGET -T "$state_backing") || fault_die "cannot find the filesystem of $state_backing"
  if ! fault_state_load "$media" || [[ -z ${state_fs:-} ]]; then
    fault_die "$1 is not on a media disk: make the disk with make-disk $1 --backing-dir MEDIA, MEDIA another make-disk disk (throttle caps $1's own device instead)"
  fi
  printf '%s' "$media"
}

# Fills the filesystem holding FILE until it has no free block: fallocate takes
# nearly all of it at once, then appending zeros takes what fallocate could not
# (blocks reserved for root, say). Prints how many bytes FILE grew by, which is
# 0 when the filesystem was full already.
fault_fill_with() {
  local file=$1 before dd_err
  touch -- "$file"
  before=$(stat -c %s -- "$file")
  fallocate -o "$before" -l $(($(stat -f -c '%f * %S' -- "$file"))) -- "$file" 2>/dev/null || true
  if dd_err=$(dd if=/dev/zero of="$file" bs=4k oflag=append conv=notrunc,fsync status=none 2>&1); then
    fault_die "appending to $file did not run out of space"
  fi
  [[ $dd_err == *"No space left on device"* ]] || fault_die "filling $file: $dd_err"
  echo $(($(stat -c %s -- "$file") - before))
}
