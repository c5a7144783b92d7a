#include "app/proxy/TaskTrees.h"

#include "common/WriteAll.h"
#include "common/tar/UploadExtractor.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

Error refused(const std::string& method, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, method + ": " + why);
}

Error systemError(const std::string& what) {
    return makeError(ErrorCode::System, what + ": " + std::strerror(errno));
}

} // namespace

Result<fs::path> TaskTrees::treeDirectory(const std::string& tree) const {
    const auto it = m_settings.trees.find(tree);
    if (it == m_settings.trees.end())
        return refused("workspace", "this task has no " + tree + " to carry");
    return it->second;
}

Result<protocol::WorkspacePullResult> TaskTrees::pull(const protocol::WorkspacePullParams& params) {
    auto directory = treeDirectory(params.tree);
    if (!directory)
        return directory.error();
    Outgoing& outgoing = m_outgoing[params.tree];
    if (params.offset == 0) {
        outgoing.archive = std::make_unique<tar::TreeArchive>(*directory);
        outgoing.offset = 0;
        if (auto scanned = outgoing.archive->scan(); !scanned)
            return scanned.error();
    } else if (!outgoing.archive || params.offset != outgoing.offset) {
        return refused("workspace.pull", "the " + params.tree + "'s archive is at " +
                                             std::to_string(outgoing.offset) + ", not at " +
                                             std::to_string(params.offset) + "; start again at 0");
    }
    protocol::WorkspacePullResult result;
    result.data.resize(protocol::kTransferChunkBytes);
    std::size_t filled = 0;
    while (filled < result.data.size()) {
        auto n = outgoing.archive->read(result.data.data() + filled, result.data.size() - filled);
        if (!n) {
            outgoing.archive.reset();
            return n.error();
        }
        if (*n == 0) {
            result.eof = true;
            break;
        }
        filled += *n;
    }
    result.data.resize(filled);
    outgoing.offset += filled;
    if (result.eof)
        outgoing.archive.reset();
    return result;
}

Status TaskTrees::push(const protocol::WorkspacePushParams& params) {
    auto directory = treeDirectory(params.tree);
    if (!directory)
        return directory.error();
    const fs::path archivePath = m_settings.scratch / (params.tree + ".push.tar");
    Incoming& incoming = m_incoming[params.tree];
    if (params.offset == 0) {
        incoming.file.reset(::open(archivePath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
        incoming.size = 0;
        if (!incoming.file.valid())
            return systemError("workspace.push: cannot create \"" + archivePath.string() + "\"");
    } else if (!incoming.file.valid() || params.offset != incoming.size) {
        return refused("workspace.push", "the " + params.tree + "'s archive has " + std::to_string(incoming.size) +
                                             " bytes, a chunk at " + std::to_string(params.offset) +
                                             " does not follow; start again at 0");
    }
    if (incoming.size + params.data.size() > m_settings.maxArchiveBytes) {
        incoming.file.reset();
        fs::remove(archivePath);
        return refused("workspace.push", "the " + params.tree + "'s archive is over its cap of " +
                                             std::to_string(m_settings.maxArchiveBytes) + " bytes");
    }
    if (!writeAll(incoming.file.get(), params.data))
        return systemError("workspace.push: cannot write \"" + archivePath.string() + "\"");
    incoming.size += params.data.size();
    if (!params.eof)
        return Ok{};
    auto replaced = replaceTree(params.tree, incoming);
    incoming.file.reset();
    std::error_code ignored;
    fs::remove(archivePath, ignored);
    return replaced;
}

Status TaskTrees::replaceTree(const std::string& tree, Incoming& incoming) {
    const fs::path target = *treeDirectory(tree);
    const fs::path fresh = m_settings.scratch / (tree + ".new");
    const fs::path old = m_settings.scratch / (tree + ".old");
    std::error_code error;
    fs::remove_all(fresh, error);
    fs::remove_all(old, error);
    if (::lseek(incoming.file.get(), 0, SEEK_SET) != 0)
        return systemError("workspace.push: cannot read the " + tree + "'s archive");
    tar::FdByteSource source(incoming.file.get());
    if (auto extracted = tar::UploadExtractor(m_settings.limits).extract(source, fresh); !extracted)
        return makeError(extracted.error().code, "workspace.push of the " + tree + ": " + extracted.error().message);
    if (fs::exists(fs::symlink_status(target)) && ::rename(target.c_str(), old.c_str()) != 0)
        return systemError("workspace.push: cannot move \"" + target.string() + "\" aside");
    if (::rename(fresh.c_str(), target.c_str()) != 0) {
        const Error failed = systemError("workspace.push: cannot put the new " + tree + " in place");
        ::rename(old.c_str(), target.c_str());
        return failed;
    }
    fs::remove_all(old, error);
    return Ok{};
}

} // namespace warren::control
