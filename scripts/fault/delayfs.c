// The layer under a disk made with make-disk --backing-delayed: a FUSE filesystem that shows
// the files of one directory as they are and holds a share of their fsyncs for a while
// before making them. A loop device's flush ends in an fsync of its backing file, so every
// inspection's fdatasync on the disk above waits for one: holding some of them makes a
// tail of the disk's latency (a few inspections in a hundred slower, the median as it was)
// of whatever size slow-tail asks for, which a throttle cannot make.
//
//   delayfs DIR CONTROL MOUNTPOINT [FUSE options]
//
// CONTROL holds two integers: the share of fsyncs to hold, in millionths, and for how long,
// in microseconds ("0 0": none). It is read at start and again after each SIGUSR1.
// Built by make-disk (cc, libfuse3); for the kit's tests only.
#define _GNU_SOURCE
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *base_dir;
static const char *control_file;
static int held_ppm;
static long hold_us;
static int reload_asked = 1;

static void ask_reload(int signal_number) {
  (void)signal_number;
  __atomic_store_n(&reload_asked, 1, __ATOMIC_SEQ_CST);
}

// Outside the signal handler: reading a file there is not async-signal-safe.
static void reload_if_asked(void) {
  if (!__atomic_exchange_n(&reload_asked, 0, __ATOMIC_SEQ_CST)) return;
  FILE *file = fopen(control_file, "r");
  if (!file) return;
  int ppm = 0;
  long us = 0;
  if (fscanf(file, "%d %ld", &ppm, &us) == 2 && ppm >= 0 && us >= 0) {
    __atomic_store_n(&held_ppm, ppm, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hold_us, us, __ATOMIC_SEQ_CST);
  }
  fclose(file);
}

static int under(char *out, const char *path) {
  return snprintf(out, PATH_MAX, "%s%s", base_dir, path) < PATH_MAX ? 0 : -ENAMETOOLONG;
}

static int dl_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  char real[PATH_MAX];
  if (fi) return fstat((int)fi->fh, st) ? -errno : 0;
  int error = under(real, path);
  return error ? error : lstat(real, st) ? -errno : 0;
}

static int dl_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
  (void)offset, (void)fi, (void)flags;
  char real[PATH_MAX];
  int error = under(real, path);
  if (error) return error;
  DIR *dir = opendir(real);
  if (!dir) return -errno;
  for (struct dirent *entry = readdir(dir); entry; entry = readdir(dir)) fill(buf, entry->d_name, NULL, 0, 0);
  closedir(dir);
  return 0;
}

static int dl_open(const char *path, struct fuse_file_info *fi) {
  char real[PATH_MAX];
  int error = under(real, path);
  if (error) return error;
  int fd = open(real, fi->flags | O_NOFOLLOW);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}

static int dl_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
  (void)path;
  ssize_t done = pread((int)fi->fh, buf, size, offset);
  return done < 0 ? -errno : (int)done;
}

static int dl_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
  (void)path;
  ssize_t done = pwrite((int)fi->fh, buf, size, offset);
  return done < 0 ? -errno : (int)done;
}

static int dl_fsync(const char *path, int data_only, struct fuse_file_info *fi) {
  (void)path;
  reload_if_asked();
  int ppm = __atomic_load_n(&held_ppm, __ATOMIC_SEQ_CST);
  long us = __atomic_load_n(&hold_us, __ATOMIC_SEQ_CST);
  if (ppm > 0 && us > 0 && random() % 1000000 < ppm) {
    struct timespec hold = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&hold, &hold) && errno == EINTR) {
    }
  }
  return (data_only ? fdatasync((int)fi->fh) : fsync((int)fi->fh)) ? -errno : 0;
}

static int dl_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}

static int dl_statfs(const char *path, struct statvfs *st) {
  char real[PATH_MAX];
  int error = under(real, path);
  return error ? error : statvfs(real, st) ? -errno : 0;
}

static int dl_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  char real[PATH_MAX];
  if (fi) return ftruncate((int)fi->fh, size) ? -errno : 0;
  int error = under(real, path);
  return error ? error : truncate(real, size) ? -errno : 0;
}

static int dl_unlink(const char *path) {
  char real[PATH_MAX];
  int error = under(real, path);
  return error ? error : unlink(real) ? -errno : 0;
}

static const struct fuse_operations operations = {
    .getattr = dl_getattr,
    .readdir = dl_readdir,
    .open = dl_open,
    .read = dl_read,
    .write = dl_write,
    .fsync = dl_fsync,
    .release = dl_release,
    .statfs = dl_statfs,
    .truncate = dl_truncate,
    .unlink = dl_unlink,
};

int main(int argc, char *argv[]) {
  if (argc < 4) {
    fprintf(stderr, "usage: delayfs DIR CONTROL MOUNTPOINT [FUSE options]\n");
    return 2;
  }
  base_dir = argv[1];
  control_file = argv[2];
  srandom((unsigned)getpid());
  reload_if_asked();
  struct sigaction action = {.sa_handler = ask_reload};
  sigaction(SIGUSR1, &action, NULL);
  // FUSE sees the program's name, then the mount point and its options.
  argv[2] = argv[0];
  return fuse_main(argc - 2, argv + 2, &operations, NULL);
}
