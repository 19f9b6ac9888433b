#pragma once

#include <cstdint>
#include <map>
#include <string>

// A probe file's header block: who made it (this process, its host, boot and
// PID namespace) and the file's random token, which says the file is ours.

// Names and fill data only need to be unlikely to repeat (O_EXCL guards the
// rest), so an entropy pool that is not ready yet must not block.
uint64_t RandomU64();

// A new random token, for a new file's header.
std::string NewToken();

// The header block's text for a file made now by this process.
std::string HeaderText(const std::string& token);

// Who this process is, beyond a PID: PIDs repeat across hosts sharing a
// filesystem, across boots and across PID namespaces (containers).
struct Origin {
  std::string host;
  std::string bootId;
  std::string pidNs;
};

const Origin& ThisOrigin();

// When this boot began, in seconds since the epoch; 0 if unknown.
int64_t BootTime();

constexpr int kHeaderVersion = 2;

using Header = std::map<std::string, std::string>;

// The key=value lines of a probe file's header; empty unless it starts with
// the magic line.
Header ReadHeader(int fd);

// Whether the header's first token= line holds `token`. Read at every
// inspection, so it scans the text in place rather than parse it all.
bool HeaderHasToken(int fd, const std::string& token);
