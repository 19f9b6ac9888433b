#include "socket_peer.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "unique_fd.h"

std::optional<SocketListener> AbstractSocketListener(const std::string& name) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // sun_path[0] stays NUL: the abstract namespace, the name's bytes after it.
  if (name.size() + 1 > sizeof(address.sun_path)) return std::nullopt;
  memcpy(address.sun_path + 1, name.data(), name.size());
  auto length =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return std::nullopt;
  // A Unix stream connect is complete at once, or refused (EAGAIN: backlog full).
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), length) != 0) {
    return std::nullopt;
  }
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0 ||
      size != sizeof(credentials)) {
    return std::nullopt;
  }
  return SocketListener{credentials.pid, credentials.uid};
}
