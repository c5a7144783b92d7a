#pragma once
// Every task a control plane runs holds descriptors in it (the agent's pipes and pidfd, its sockets, its
// proxies' connections, its lock): the soft limit a service starts with (1,024 under systemd) would refuse
// new tasks at a few hundred. The engine raises the soft limit to the hard one, the operator's bound
// (524,288 under systemd). The sandboxes get their own (the profile's open_files).

#include "common/Result.h"

#include <cstdint>

namespace warren::control {

// The soft RLIMIT_NOFILE raised to the hard one; the limit now in force.
Result<std::uint64_t> raiseOpenFileLimit();

} // namespace warren::control
