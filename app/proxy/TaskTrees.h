#pragma once
// The control plane's half of workspace.pull and workspace.push (docs/PROTOCOL.md): the task's trees (its
// workspace, state and output directories) served to an agent that has none of them (a cluster's pod) as
// tar archives in chunks, and replaced by the archives it sends back.
//
// A pull streams the tree (common/tar/TreeArchive) as the agent asks, chunk after chunk; nothing is
// written. A push is hostile input: its chunks must follow each other, the archive is capped, kept in a
// file of the scratch directory while it arrives, then extracted with the upload's rules
// (common/tar/UploadExtractor) into a new directory; only a whole, admitted archive replaces the tree
// (two renames), so a refused or broken push loses nothing of the tree it was to replace.

#include "agent_core/protocol/Methods.h"
#include "common/Result.h"
#include "common/UniqueFd.h"
#include "common/tar/TreeArchive.h"
#include "common/tar/UploadPolicy.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace warren::control {

class TaskTrees {
public:
    struct Settings {
        std::map<std::string, std::filesystem::path> trees; // protocol tree name -> its directory
        // Where pushed archives and their extraction wait; on the trees' file system, so a rename moves them.
        std::filesystem::path scratch;
        tar::UploadLimits limits;
        std::uint64_t maxArchiveBytes = 2ull << 30; // of one pushed archive, headers and all
    };

    explicit TaskTrees(Settings settings) : m_settings(std::move(settings)) {}

    Result<protocol::WorkspacePullResult> pull(const protocol::WorkspacePullParams& params);
    Status push(const protocol::WorkspacePushParams& params);

private:
    struct Outgoing {
        std::unique_ptr<tar::TreeArchive> archive;
        std::uint64_t offset = 0; // sent so far
    };
    struct Incoming {
        UniqueFd file;
        std::uint64_t size = 0;
    };

    Result<std::filesystem::path> treeDirectory(const std::string& tree) const;
    Status replaceTree(const std::string& tree, Incoming& incoming);

    Settings m_settings;
    std::map<std::string, Outgoing> m_outgoing;
    std::map<std::string, Incoming> m_incoming;
};

} // namespace warren::control
