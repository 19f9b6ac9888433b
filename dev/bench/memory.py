#!/usr/bin/env python3
"""Memory of slowdisk's processes as the machine pays for it: PSS, read with no other
Node process sharing slowdisk's pages.

PSS splits each shared page among every process that maps it, so a Node harness alive
while it is read (dev/bench/overhead.ts) takes part of slowdisk's share of the
`node` binary. This script is not Node: it starts `slowdisk watch` on two loop-device ext4
disks (scripts/fault/make-disk), with and without `--textfile DIR`, on a private copy of
the `node` binary (so that no other Node process, npm's included, maps the same file),
waits, then sums `Pss` from /proc/PID/smaps_rollup over the CLI and every descendant.
Before reading, it lists the other Node processes on the machine and says whether any
maps the binary slowdisk runs on (then the figure is marked NOT ALONE).

    sudo python3 dev/bench/memory.py [--seconds 15] [--warm-up 5] [--system-node]
             [--node-flags FLAGS] [--only plain|textfile] [--json FILE] [-- EXTRA WATCH FLAGS]

--system-node runs slowdisk on the `node` on PATH itself (alone only if no other Node
process runs). CPU is utime + stime of the whole tree over the window after the warm-up.
Exit status 0 when every run completed, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
BIN = os.path.join(ROOT, 'bin', 'slowdisk.js')
KIT = os.path.join(ROOT, 'scripts', 'fault')
CLK_TCK = os.sysconf('SC_CLK_TCK')
TARGET_PSS_MIB = 55
ROLLUP_FIELDS = ('Rss', 'Pss', 'Pss_Anon', 'Pss_File', 'Shared_Clean', 'Shared_Dirty', 'Private_Clean', 'Private_Dirty', 'Anonymous')


def stat_fields(pid):
    """Fields of /proc/PID/stat after the command name, from the state on (index 0)."""
    with open(f'/proc/{pid}/stat') as f:
        text = f.read()
    return text[text.rindex(')') + 2:].split(' ')


def all_pids():
    return [int(entry) for entry in os.listdir('/proc') if entry.isdigit()]


def descendants(root):
    """The PIDs below `root`, from the parent PIDs in /proc/*/stat."""
    parent_of = {}
    for pid in all_pids():
        try:
            parent_of[pid] = int(stat_fields(pid)[1])
        except (OSError, ValueError, IndexError):
            pass  # ended while we looked
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parent_of.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return sorted(found)


def cpu_ms(pid):
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) * 1000 / CLK_TCK


def rollup(pid):
    values = {}
    with open(f'/proc/{pid}/smaps_rollup') as f:
        for line in f:
            key, _, rest = line.partition(':')
            if key in ROLLUP_FIELDS:
                values[key] = int(rest.split()[0])
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmHWM:'):
                values['VmHWM'] = int(line.split()[1])
    return values


def pss_by_mapping(pid, node_binary):
    """PSS in KiB by what is mapped: the node binary, the addon, shared libraries, anonymous memory."""
    groups = {'node binary': 0, 'addon': 0, 'shared libraries': 0, 'anonymous': 0, 'other files': 0}
    current = 'anonymous'
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            head = line.split(None, 5)
            if len(head) >= 5 and '-' in head[0] and not head[0].endswith(':'):
                path = head[5].strip() if len(head) == 6 else ''
                if path == node_binary:
                    current = 'node binary'
                elif path.endswith('.node'):
                    current = 'addon'
                elif '.so' in os.path.basename(path):
                    current = 'shared libraries'
                elif path == '' or path.startswith('['):
                    current = 'anonymous'
                else:
                    current = 'other files'
            elif line.startswith('Pss:'):
                groups[current] += int(line.split()[1])
    return groups


def exe_of(pid):
    try:
        return os.readlink(f'/proc/{pid}/exe').removesuffix(' (deleted)')
    except OSError:
        return None


def other_node_processes(ours):
    """Node processes not started by this script: (pid, executable, command line)."""
    found = []
    for pid in all_pids():
        if pid in ours:
            continue
        exe = exe_of(pid)
        try:
            with open(f'/proc/{pid}/comm') as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm != 'node' and not (exe and os.path.basename(exe) == 'node'):
            continue
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
        except OSError:
            cmdline = '?'
        found.append((pid, exe, cmdline))
    return found


def role(pid):
    with open(f'/proc/{pid}/cmdline', 'rb') as f:
        cmdline = f.read().decode(errors='replace')
    if 'dist/bundle/prober.js' in cmdline:
        return 'prober'
    if 'dist/bundle/writer-child.js' in cmdline:
        return 'output writer'
    if 'bin/slowdisk.js' in cmdline:
        return 'CLI'
    return os.path.basename(cmdline.split('\0')[0]) or '?'


def kit(script, *args):
    return subprocess.run([os.path.join(KIT, script), *args], check=True, capture_output=True, text=True).stdout.strip()


def mib(kib):
    return f'{kib / 1024:.1f} MiB'


def measure(label, node, node_flags, disks, extra, seconds, warm_up, scratch):
    args = [node, *node_flags, BIN, 'watch', *[a for i, d in enumerate(disks) for a in ('--path', f'd{i}={d}')], '--keep-going', *extra]
    log = open(os.path.join(scratch, f'{label}.log'), 'w')
    cli = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    started = [cli.pid]
    try:
        time.sleep(warm_up)
        if cli.poll() is not None:
            raise RuntimeError(f'slowdisk watch exited with {cli.returncode}: {open(log.name).read().strip()}')
        tree = [cli.pid, *descendants(cli.pid)]
        started.extend(tree[1:])
        t0, cpu0 = time.monotonic(), {pid: cpu_ms(pid) for pid in tree}
        time.sleep(seconds)
        tree_now = [cli.pid, *descendants(cli.pid)]
        started.extend(pid for pid in tree_now if pid not in started)
        if sorted(tree_now) != sorted(tree):
            raise RuntimeError(f'the process tree changed during the window: {tree} -> {tree_now}')
        others = other_node_processes(set(tree))
        processes = []
        for pid in tree:
            cpu = (cpu_ms(pid) - cpu0[pid]) / ((time.monotonic() - t0) * 1000) * 100
            processes.append({'pid': pid, 'role': role(pid), 'cpuPct': cpu, **rollup(pid), 'pssByMapping': pss_by_mapping(pid, exe_of(pid))})
        loadavg = [round(x, 2) for x in os.getloadavg()]
    finally:
        stop(started, cli)
        log.close()
    sharing = [o for o in others if o[1] == os.path.realpath(node)]
    return {
        'label': label,
        'node': node,
        'alone': len(others) == 0,
        'sharesNodeBinary': len(sharing) > 0,
        'otherNodeProcesses': [{'pid': p, 'exe': e, 'cmdline': c[:200]} for p, e, c in others],
        'loadAvg': loadavg,
        'windowS': seconds,
        'processes': processes,
        'pssSumKiB': sum(p['Pss'] for p in processes),
        'rssSumKiB': sum(p['Rss'] for p in processes),
        'cpuPct': sum(p['cpuPct'] for p in processes),
    }


def stop(pids, cli):
    """SIGTERM to the CLI (it stops its children), then SIGKILL to any of our PIDs still there."""
    if cli.poll() is None:
        cli.send_signal(signal.SIGTERM)
        try:
            cli.wait(10)
        except subprocess.TimeoutExpired:
            cli.kill()
            cli.wait()
    until = time.monotonic() + 5
    while time.monotonic() < until and any(os.path.exists(f'/proc/{pid}') for pid in pids[1:]):
        time.sleep(0.1)
    for pid in pids[1:]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def status(result):
    if result['alone']:
        return 'alone'
    if result['sharesNodeBinary']:
        return 'NOT ALONE'
    return 'alone (node binary)'


def report(result):
    print(f"\n== {result['label']}: {status(result)}, load average {' '.join(map(str, result['loadAvg']))}")
    if not result['alone']:
        what = ('THEY MAP THE SAME node BINARY: slowdisk\'s PSS below is too low (NOT ALONE)' if result['sharesNodeBinary']
                else 'none maps the node binary slowdisk ran on (a private copy); they share only system libraries with it')
        print(f"!! other Node processes were running: {what}")
        listed = result['otherNodeProcesses']
        for other in listed[:8]:
            print(f"!!   pid {other['pid']} {other['exe']}: {other['cmdline'][:100]}")
        if len(listed) > 8:
            print(f"!!   and {len(listed) - 8} more")
    print(f"{'process':<14} {'pid':>7} {'PSS':>9} {'RSS':>9} {'VmHWM':>9} {'Priv_Dirty':>10} {'Priv_Clean':>10} {'Shr_Clean':>9} {'CPU':>7}   PSS by mapping")
    for p in result['processes']:
        by = ', '.join(f'{k} {mib(v)}' for k, v in p['pssByMapping'].items() if v > 0)
        print(f"{p['role']:<14} {p['pid']:>7} {mib(p['Pss']):>9} {mib(p['Rss']):>9} {mib(p['VmHWM']):>9} {mib(p['Private_Dirty']):>10} "
              f"{mib(p['Private_Clean']):>10} {mib(p['Shared_Clean']):>9} {p['cpuPct']:>6.2f}%   {by}")
    verdict = 'met' if result['pssSumKiB'] / 1024 <= TARGET_PSS_MIB else 'MISSED'
    print(f"{'sum':<14} {'':>7} {mib(result['pssSumKiB']):>9} {mib(result['rssSumKiB']):>9} {'':>9} {'':>10} {'':>10} {'':>9} "
          f"{result['cpuPct']:>6.2f}%   target PSS <= {TARGET_PSS_MIB} MiB: {verdict} ({status(result)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=15, help='measured window after the warm-up (default 15)')
    parser.add_argument('--warm-up', type=float, default=5, help='seconds before the window (default 5)')
    parser.add_argument('--system-node', action='store_true', help='run on the node on PATH, not a private copy')
    parser.add_argument('--node-flags', default='', help="flags for the node running the CLI, e.g. '--jitless' (default none)")
    parser.add_argument('--only', choices=('plain', 'textfile'), help='one of the two runs only')
    parser.add_argument('--json', help='write the figures to this file (default bench-results/memory.json)')
    parser.add_argument('extra', nargs='*', help='more flags for every watch run (after --)')
    options = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit('memory.py needs root: it makes loop-device disks')
    system_node = shutil.which('node')
    if system_node is None:
        sys.exit('node not found on PATH')
    if not os.path.exists(os.path.join(ROOT, 'dist', 'bundle', 'prober.js')):
        sys.exit('not built: run `npm run build:js`')
    scratch = tempfile.mkdtemp(prefix='slowdisk-bench-memory-')
    made, results, failed = [], [], False
    try:
        node = os.path.realpath(system_node)
        if not options.system_node:
            node = os.path.join(scratch, 'node')
            shutil.copy2(os.path.realpath(system_node), node)
        disks = []
        for name in ('a', 'b'):
            disk = os.path.join(scratch, name)
            made.append(disk)
            kit('make-disk', disk, '--size-mib', '64')
            disks.append(disk)
        textfile = os.path.join(scratch, 'textfile')
        os.mkdir(textfile)
        runs = [('plain', 'watch, 2 disks', []), ('textfile', 'watch, 2 disks, --textfile', ['--textfile', textfile])]
        for key, label, extra in runs:
            if options.only not in (None, key):
                continue
            try:
                result = measure(label, node, options.node_flags.split(), disks, [*extra, *options.extra], options.seconds, options.warm_up, scratch)
                results.append(result)
                report(result)
            except (RuntimeError, OSError) as error:
                failed = True
                print(f'\n== {label}: did not complete: {error}')
    finally:
        for disk in reversed(made):
            try:
                kit('remove-disk', disk)
            except subprocess.CalledProcessError as error:
                print(f'memory.py: clean-up: {error.stderr.strip()}', file=sys.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
    out = options.json or os.path.join(ROOT, 'bench-results', 'memory.json')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'finishedAt': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), 'extraFlags': options.extra, 'nodeFlags': options.node_flags,
                   'privateNodeCopy': not options.system_node, 'targetPssMiB': TARGET_PSS_MIB, 'runs': results}, f, indent=2)
        f.write('\n')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
