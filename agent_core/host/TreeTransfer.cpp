#include "agent_core/host/TreeTransfer.h"

#include "agent_core/protocol/Methods.h"

#include <cstring>

namespace warren::agent {

namespace {

std::chrono::steady_clock::time_point chunkDeadline() {
    return std::chrono::steady_clock::now() + kTransferChunkPatience;
}

// The control plane's archive, asked for chunk by chunk as the extractor reads it.
class PulledArchive final : public tar::ByteSource {
public:
    PulledArchive(const HostCall& call, std::string tree) : m_call(call), m_tree(std::move(tree)) {}

    Result<std::size_t> read(char* buffer, std::size_t capacity) override {
        while (m_at == m_chunk.size()) {
            if (m_eof)
                return std::size_t{0};
            auto answer = m_call(protocol::method::kWorkspacePull,
                                 protocol::toJson(protocol::WorkspacePullParams{m_tree, m_offset}),
                                 chunkDeadline(), nullptr);
            if (!answer)
                return makeError(answer.error().code, "workspace.pull of the " + m_tree +
                                                          " failed: " + answer.error().message);
            auto result = protocol::workspacePullResultFromJson(*answer);
            if (!result)
                return result.error();
            if (result->data.empty() && !result->eof)
                return makeError(ErrorCode::InvalidArgument, "workspace.pull of the " + m_tree +
                                                                 ": the control plane sent an empty chunk before "
                                                                 "the end of the archive");
            m_chunk = std::move(result->data);
            m_at = 0;
            m_offset += m_chunk.size();
            m_eof = result->eof;
        }
        const std::size_t n = std::min(capacity, m_chunk.size() - m_at);
        std::memcpy(buffer, m_chunk.data() + m_at, n);
        m_at += n;
        return n;
    }

private:
    const HostCall& m_call;
    std::string m_tree;
    std::string m_chunk;
    std::size_t m_at = 0;
    std::uint64_t m_offset = 0;
    bool m_eof = false;
};

} // namespace

Result<tar::UploadCounts> pullTree(const HostCall& call, const std::string& tree,
                                   const std::filesystem::path& directory, const tar::UploadLimits& limits) {
    PulledArchive archive(call, tree);
    return tar::UploadExtractor(limits).extractIntoEmpty(archive, directory);
}

Result<std::vector<tar::LeftOut>> pushTree(const HostCall& call, const std::string& tree,
                                           const std::filesystem::path& directory) {
    tar::TreeArchive archive(directory);
    if (auto scanned = archive.scan(); !scanned)
        return scanned.error();
    protocol::WorkspacePushParams chunk{tree, 0, std::string(protocol::kTransferChunkBytes, '\0'), false};
    std::uint64_t offset = 0;
    for (;;) {
        // Fill the chunk: a read returns a header, a file's piece or padding, often much less than a chunk.
        chunk.data.resize(protocol::kTransferChunkBytes);
        std::size_t filled = 0;
        while (filled < chunk.data.size()) {
            auto n = archive.read(chunk.data.data() + filled, chunk.data.size() - filled);
            if (!n)
                return n.error();
            if (*n == 0) {
                chunk.eof = true;
                break;
            }
            filled += *n;
        }
        chunk.data.resize(filled);
        chunk.offset = offset;
        auto answer = call(protocol::method::kWorkspacePush, protocol::toJson(chunk), chunkDeadline(), nullptr);
        if (!answer)
            return makeError(answer.error().code,
                             "workspace.push of the " + tree + " failed: " + answer.error().message);
        offset += filled;
        if (chunk.eof)
            return archive.leftOut();
    }
}

} // namespace warren::agent
