#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

// Who listens on an abstract Unix socket, as the kernel says it: the pid and
// effective uid of the process that called listen() on it. Anyone may bind
// any free abstract name, so a name says nothing of who holds it; this does.
struct SocketListener {
  pid_t pid;
  uid_t uid;
};

// Connects to the abstract socket `name` (without its leading NUL) without
// waiting, reads the listener's credentials (SO_PEERCRED) and closes. None
// when nothing listens there, its backlog is full, or the name is too long.
// Touches no disk.
std::optional<SocketListener> AbstractSocketListener(const std::string& name);
