// The plain loop the benchmarks compare slowdisk against: the same syscalls as
// one slowdisk inspection (native/inspection.cc), with nothing around them.
//
//   plain-loop DIR COUNT INTERVAL_MS [IO_SIZE] [BLOCKS] [written|unwritten] [PHASES_MS]
//
// Makes a probe file in DIR the way slowdisk does (a header block, fallocate,
// BLOCKS data blocks written with O_DIRECT, fdatasync; with "unwritten" the data
// blocks are only fallocate'd, left as unwritten extents), then runs COUNT
// inspections on absolute deadlines INTERVAL_MS apart (0: back to back). With
// PHASES_MS (e.g. "25,50,75") the deadlines are the instants of CLOCK_MONOTONIC that
// are that many ms past a multiple of INTERVAL_MS, the phase moving to the next in the
// list every 10 inspections: programs run side by side take turns on the disk, and
// each spends as long in every turn as the others. Each
// inspection opens the file with O_DIRECT, fstat's it, pwrite's a fresh block
// (block k % BLOCKS, at offset (1 + k % BLOCKS) * IO_SIZE, as slowdisk), fdatasync's,
// pread's it back, compares, closes. One line per inspection on stdout:
//
//   open_ns write_ns sync_ns read_ns close_ns total_ns start_ns
//
// start_ns is the instant the inspection began on CLOCK_MONOTONIC, the clock slowdisk's
// ticks are kept on, so that a slow inspection can be set beside slowdisk's at the same time.
//
// then a last line "# cpu_ns N" with the process's CPU time (user + system)
// over the loop (the sleeps between inspections cost next to nothing). The file is removed at the end.
//
// With PLAIN_LOOP_CHECKED=1 in the environment each inspection also makes the checks
// slowdisk's makes before it touches a file it holds for its own (native/inspection.cc,
// native/probe_file.cc): the directory's statx, open and fstat, the name's fstatat, the
// file opened without O_DIRECT, its inode and birth time (one statx) and header (pread,
// from the page cache) read, then O_DIRECT set (fcntl); and every 10th writes the
// round's fresh block (O_TMPFILE). That is the floor of what slowdisk does, not of the
// I/O alone.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void die(const char* what, const char* path) {
  fprintf(stderr, "plain-loop: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

// Same generator as native/block_io.cc: every block of every inspection differs.
static void fill(uint8_t* buf, size_t size, uint64_t seed, uint64_t block) {
  uint64_t state = seed ^ (block * 0xD1B54A32D192ED03ull);
  for (size_t at = 0; at < size; at += 8) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    memcpy(buf + at, &z, size - at < 8 ? size - at : 8);
  }
}

static void write_block(int fd, const uint8_t* buf, size_t size, off_t offset, const char* path) {
  ssize_t n = pwrite(fd, buf, size, offset);
  if (n != (ssize_t)size) die("pwrite", path);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: plain-loop DIR COUNT INTERVAL_MS [IO_SIZE] [BLOCKS] [written|unwritten] [PHASES_MS]\n");
    return 2;
  }
  const char* dir = argv[1];
  long count = atol(argv[2]);
  double interval_ms = atof(argv[3]);
  size_t io_size = argc > 4 ? (size_t)atol(argv[4]) : 4096;
  uint64_t blocks = argc > 5 ? (uint64_t)atol(argv[5]) : 64;
  int unwritten = argc > 6 && strcmp(argv[6], "unwritten") == 0;
  double phases_ms[16];
  int phases = 0;
  for (char* p = argc > 7 ? argv[7] : NULL; p && *p && phases < 16;) {
    char* end;
    phases_ms[phases++] = strtod(p, &end);
    p = *end == ',' ? end + 1 : NULL;
  }

  char path[4096];
  snprintf(path, sizeof path, "%s/.slowdisk-bench-plain-%d", dir, (int)getpid());
  uint8_t *wbuf, *rbuf;
  if (posix_memalign((void**)&wbuf, 4096, io_size) || posix_memalign((void**)&rbuf, 4096, io_size)) {
    die("posix_memalign", path);
  }

  // The probe file, as native/probe_file.cc makes it.
  int fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) die("open", path);
  memset(wbuf, 0, io_size);
  strcpy((char*)wbuf, "slowdisk bench plain loop\n");
  write_block(fd, wbuf, io_size, 0, path);
  if (fallocate(fd, 0, 0, (off_t)(io_size * (1 + blocks))) != 0 && errno != EOPNOTSUPP) die("fallocate", path);
  uint64_t seed = now_ns();
  for (uint64_t b = 0; b < blocks && !unwritten; ++b) {
    fill(wbuf, io_size, seed, b);
    write_block(fd, wbuf, io_size, (off_t)(io_size * (1 + b)), path);
  }
  if (fdatasync(fd) != 0) die("fdatasync", path);
  struct stat made;
  if (fstat(fd, &made) != 0) die("fstat", path);
  close(fd);

  const char* checked_env = getenv("PLAIN_LOOP_CHECKED");
  const int checked = checked_env && strcmp(checked_env, "1") == 0;
  const char* name = strrchr(path, '/') + 1;
  char header[4096];

  const uint64_t cpu_start = cpu_ns();
  const uint64_t interval_ns = (uint64_t)(interval_ms * 1e6);
  uint64_t first = now_ns() + interval_ns;
  if (interval_ns > 0 && phases > 0) {
    uint64_t now = now_ns();
    first = (now + 20000000ull) / interval_ns * interval_ns + interval_ns;
  }
  for (long k = 0; k < count; ++k) {
    if (interval_ns > 0) {
      uint64_t deadline = first + (uint64_t)k * interval_ns;
      if (phases > 0) deadline += (uint64_t)(phases_ms[(k / 10) % phases] * 1e6);
      struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
      }
    }
    uint64_t block = (uint64_t)k % blocks;
    off_t offset = (off_t)(io_size * (1 + block));
    fill(wbuf, io_size, seed + 1 + (uint64_t)k, block);

    uint64_t t0 = now_ns();
    int dir_fd = -1;
    struct stat st;
    if (checked) {
      struct statx stx;
      if (statx(AT_FDCWD, dir, AT_STATX_SYNC_AS_STAT, STATX_TYPE | STATX_INO, &stx) != 0) die("statx", dir);
      dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir_fd < 0 || fstat(dir_fd, &st) != 0) die("open", dir);
      if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) die("fstatat", path);
      fd = openat(dir_fd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
      if (fd < 0) die("open", path);
      if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_BTIME, &stx) != 0) die("statx", path);
      if (pread(fd, header, sizeof header, 0) <= 0) die("pread", path);
      if (fcntl(fd, F_SETFL, O_DIRECT) != 0) die("fcntl", path);
    } else {
      fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_DIRECT);
      if (fd < 0) die("open", path);
    }
    if (fstat(fd, &st) != 0 || st.st_ino != made.st_ino) die("fstat", path);
    uint64_t t1 = now_ns();
    write_block(fd, wbuf, io_size, offset, path);
    uint64_t t2 = now_ns();
    if (fdatasync(fd) != 0) die("fdatasync", path);
    uint64_t t3 = now_ns();
    if (pread(fd, rbuf, io_size, offset) != (ssize_t)io_size) die("pread", path);
    uint64_t t4 = now_ns();
    if (memcmp(wbuf, rbuf, io_size) != 0) {
      errno = EIO;
      die("compare", path);
    }
    uint64_t t5 = now_ns();
    if (close(fd) != 0) die("close", path);
    uint64_t t6 = now_ns();
    if (checked && k % 10 == 0) {
      int fresh = openat(dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | O_DIRECT, 0600);
      if (fresh < 0) die("open O_TMPFILE", dir);
      write_block(fresh, wbuf, io_size, 0, path);
      close(fresh);
    }
    if (dir_fd >= 0) close(dir_fd);
    printf("%llu %llu %llu %llu %llu %llu %llu\n", (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1),
           (unsigned long long)(t3 - t2), (unsigned long long)(t4 - t3), (unsigned long long)(t6 - t5),
           (unsigned long long)(t6 - t0), (unsigned long long)t0);
  }
  printf("# cpu_ns %llu\n", (unsigned long long)(cpu_ns() - cpu_start));
  unlink(path);
  return 0;
}
