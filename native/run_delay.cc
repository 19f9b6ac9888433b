#include "run_delay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "unique_fd.h"

namespace {

// The thread's whole run delay so far, in ns; -1 where the kernel does not say.
int64_t ThreadRunDelayNs() {
  // Opened once per thread, read again from its start each time.
  thread_local UniqueFd fd(
      ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return -1;
  char text[96];
  ssize_t n = ::pread(fd.get(), text, sizeof text - 1, 0);
  if (n <= 0) return -1;
  text[n] = '\0';
  // "<ns on a CPU> <ns waiting for a CPU> <timeslices>"
  char* end = nullptr;
  std::strtoull(text, &end, 10);
  if (end == text || *end != ' ') return -1;
  const char* delay = end + 1;
  unsigned long long ns = std::strtoull(delay, &end, 10);
  if (end == delay) return -1;
  return static_cast<int64_t>(ns);
}

}  // namespace

int64_t ThreadRunDelaySinceLastNs() {
  // The counter starts at 0 with the thread.
  thread_local int64_t last = 0;
  const int64_t now = ThreadRunDelayNs();
  if (now < 0 || now < last) return -1;
  const int64_t since = now - last;
  last = now;
  return since;
}
