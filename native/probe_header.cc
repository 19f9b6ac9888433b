#include "probe_header.h"

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string_view>

namespace {

constexpr char kMagicLine[] = "slowdisk probe file\n";
// Enough for every header line; the header block is at least 512 bytes.
constexpr size_t kHeaderRead = 512;

std::string FirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The text of a probe file's header, up to its first NUL; empty unless it
// starts with the magic line.
std::string_view ReadHeaderText(int fd, char (&text)[kHeaderRead + 1]) {
  ssize_t n = pread(fd, text, kHeaderRead, 0);
  if (n <= 0) return {};
  text[n] = '\0';
  std::string_view header(text, strnlen(text, static_cast<size_t>(n)));
  if (header.substr(0, sizeof kMagicLine - 1) != kMagicLine) return {};
  return header;
}

}  // namespace

uint64_t RandomU64() {
  uint64_t value;
  if (getrandom(&value, sizeof value, GRND_NONBLOCK) == sizeof value) {
    return value;
  }
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (static_cast<uint64_t>(now.tv_sec) * 1000000000ull +
          static_cast<uint64_t>(now.tv_nsec)) ^
         (static_cast<uint64_t>(getpid()) << 40);
}

std::string NewToken() {
  char token[33];
  snprintf(token, sizeof token, "%016" PRIx64 "%016" PRIx64, RandomU64(),
           RandomU64() ^ static_cast<uint64_t>(clock()));
  return token;
}

const Origin& ThisOrigin() {
  static const Origin origin = [] {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    std::string h(host);
    std::replace(h.begin(), h.end(), '\n', '_');
    struct stat ns;
    std::string pidNs = stat("/proc/self/ns/pid", &ns) == 0
                            ? std::to_string(ns.st_ino)
                            : std::string();
    return Origin{h, FirstLine("/proc/sys/kernel/random/boot_id"), pidNs};
  }();
  return origin;
}

int64_t BootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  int64_t value;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(INT_MAX, '\n');
  }
  return 0;
}

std::string HeaderText(const std::string& token) {
  const Origin& o = ThisOrigin();
  return std::string(kMagicLine) + "version=" + std::to_string(kHeaderVersion) +
         "\npid=" + std::to_string(getpid()) +
         "\ncreated=" + std::to_string(time(nullptr)) + "\nhost=" + o.host +
         "\nboot_id=" + o.bootId + "\npid_ns=" + o.pidNs + "\ntoken=" + token +
         "\nThis file belongs to a running slowdisk prober; it is removed "
         "when the prober exits.\n";
}

Header ReadHeader(int fd) {
  char text[kHeaderRead + 1];
  std::istringstream lines{std::string(ReadHeaderText(fd, text))};
  Header header;
  std::string line;
  while (std::getline(lines, line)) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) header.emplace(line.substr(0, eq), line.substr(eq + 1));
  }
  return header;
}

bool HeaderHasToken(int fd, const std::string& token) {
  char text[kHeaderRead + 1];
  std::string_view header = ReadHeaderText(fd, text);
  // The magic line comes first, so every other line follows a newline.
  constexpr std::string_view kKey = "\ntoken=";
  size_t at = header.find(kKey);
  if (at == std::string_view::npos) return false;
  std::string_view value = header.substr(at + kKey.size());
  return value.substr(0, value.find('\n')) == token;
}
