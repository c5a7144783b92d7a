#pragma once
// `warren-agent await-claim SOCKET`: what a warm container runs before it is any task's (sandbox/container/
// WarmPool). It listens on SOCKET (in a directory of its own the host binds in), takes the one claim the
// control plane sends (common/WarmClaim), puts the claim's stdin, stdout and stderr in place, sets its
// environment over the container's, and execs its command, which stays the container's pid 1. SIGTERM,
// SIGHUP and SIGINT before a claim end it (as pid 1 it would otherwise ignore them).
// Returns only on failure: the exit status.

#include <string>

namespace warren::agent {

int awaitClaim(const std::string& socketPath);

} // namespace warren::agent
