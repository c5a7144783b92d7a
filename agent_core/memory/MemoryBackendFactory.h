#pragma once
// The backend memory_backend names, scoped by memory_prefix where the agent applies it: the filesystem
// backend stores under <dir>/<prefix>/; the control plane applies the prefix itself for the host
// backend; the in-memory backend holds one task's memories only, so there is nothing to scope.

#include "agent_core/config/AgentConfig.h"
#include "agent_core/memory/HostMemoryBackend.h"
#include "agent_core/memory/MemoryBackend.h"

#include <filesystem>
#include <memory>
#include <string>

namespace warren::agent {

// Errors: an invalid prefix (named), a missing or read-only dir ("memory store /memories is not
// available: ...; mount one or use --preset local-light"), the host backend without a hostCall.
// Creates <dir>/<prefix> when dir exists.
Result<std::unique_ptr<MemoryBackend>> makeMemoryBackend(MemoryBackendKind kind,
                                                         const std::filesystem::path& dir,
                                                         const std::string& prefix, HostMemoryCall hostCall);

} // namespace warren::agent
