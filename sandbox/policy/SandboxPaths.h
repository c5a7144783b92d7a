#pragma once
// Where a path inside the sandbox comes from on the host, read from the profile's mounts. Used to tell
// "the command does not exist in the sandbox" (exit 127) from "the sandbox could not be set up" (125)
// after bwrap failed: both make bwrap exit 1 before the command runs.

#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/policy/SandboxProfile.h"

#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

// "/a/./b/../c/" -> "/a/c", lexically (no filesystem): profile paths are compared as strings, so they
// must be normal.
std::string normalizePath(const std::string& path);

// The host path behind sandboxPath, following mirrored and sandbox symlinks; nullopt where it lies on a
// tmpfs, /proc, /dev or nothing at all.
std::optional<std::string> hostPathOf(const SandboxProfile& profile, const std::string& sandboxPath,
                                      const HostLookup& lookup = lookupHostPath);

// Whether execvp inside the sandbox can find command[0] (searching the profile's PATH for a bare name),
// judged from the host. isExecutable checks a host path.
bool commandFound(const SandboxProfile& profile, const std::string& command,
                  const std::function<bool(const std::string&)>& isExecutable, const HostLookup& lookup = lookupHostPath);

} // namespace warren::sandbox
