#pragma once
// The agent's half of workspace.pull and workspace.push (docs/PROTOCOL.md): for an agent whose sandbox
// holds none of the control plane's files (a cluster's pod), the task's trees cross the protocol's
// connection as tar archives in chunks of at most protocol::kTransferChunkBytes, never held whole.
//
// A pulled archive is hostile input like any upload: it goes through the one extractor (common/tar:
// UploadPolicy's rules, openat with O_NOFOLLOW, O_EXCL), so a forged control plane cannot write outside
// the directory it fills, nor a device, nor a link out; on any error the directory is left empty.

#include "agent_core/host/HostCall.h"
#include "common/Result.h"
#include "common/tar/TreeArchive.h"
#include "common/tar/UploadExtractor.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace warren::agent {

// How long one chunk's request may take.
inline constexpr std::chrono::seconds kTransferChunkPatience{120};

// Fills directory, which must exist and be empty, with the control plane's tree (a protocol tree name:
// "workspace", "state").
Result<tar::UploadCounts> pullTree(const HostCall& call, const std::string& tree,
                                   const std::filesystem::path& directory, const tar::UploadLimits& limits = {});

// Sends directory as the control plane's new copy of tree. What the archive cannot hold (sockets, links
// out, ...) is left out; the result lists it.
Result<std::vector<tar::LeftOut>> pushTree(const HostCall& call, const std::string& tree,
                                           const std::filesystem::path& directory);

} // namespace warren::agent
