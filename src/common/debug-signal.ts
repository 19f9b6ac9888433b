// SIGUSR1 makes Node open its inspector on 127.0.0.1:9229, where any local user can run
// JavaScript as the process's user: as root, for slowdisk. Node 20 has no flag against it
// (--disable-sigusr1 came with Node 22.14), but a listener of the process's own replaces
// Node's handler. So every slowdisk process ignores SIGUSR1, quietly (a log rotation's habit
// of sending it is no event): each entry point imports this module before anything else.
process.on('SIGUSR1', () => {});
