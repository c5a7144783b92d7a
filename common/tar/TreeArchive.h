#pragma once
// A directory's tree as a tar archive, read in pieces (a ByteSource), so a tree of any size goes out in
// bounded chunks and is never held whole: the control plane's workspace sent into a pod (workspace.pull),
// the pod's workspace, /state and /output sent back (workspace.push).
//
// What goes is what the receiving UploadPolicy admits: files, directories and symbolic links that stay in
// the tree, also through its other links (common/LinkChain), each directory before what it holds, in name
// order. What it would refuse, and with it the whole archive, is left out and listed with the reason:
// sockets, FIFOs, devices, links to an absolute path, out of the tree or in a loop. Headers come from
// TarHeader, the one writer. A file is sent as long as it was when the tree was walked; one that became
// shorter is an error naming it.

#include "common/Result.h"
#include "common/UniqueFd.h"
#include "common/tar/ByteSource.h"
#include "common/tar/TarHeader.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warren::tar {

struct LeftOut {
    std::string path;
    std::string reason;
    friend bool operator==(const LeftOut&, const LeftOut&) = default;
};

class TreeArchive final : public ByteSource {
public:
    explicit TreeArchive(std::filesystem::path root) : m_root(std::move(root)) {}

    // Walks the tree and chooses its members; read() fails until this succeeded.
    Status scan();
    Result<std::size_t> read(char* buffer, std::size_t capacity) override;

    const std::vector<TarMember>& members() const { return m_members; }
    const std::vector<LeftOut>& leftOut() const { return m_leftOut; }

private:
    Status walk(const std::filesystem::path& directory, const std::string& prefix);
    Status startNext();

    std::filesystem::path m_root;
    std::vector<TarMember> m_members;
    std::vector<LeftOut> m_leftOut;
    bool m_scanned = false;
    std::size_t m_next = 0;     // the member whose headers go out next
    std::string m_pending;      // headers, padding or the end marker, not yet read
    std::size_t m_pendingAt = 0;
    UniqueFd m_file;            // the file whose data goes out now
    std::string m_filePath;
    std::uint64_t m_fileLeft = 0;
    std::uint64_t m_fileSize = 0;
    bool m_ended = false;       // the end marker is in m_pending (or read)
};

} // namespace warren::tar
