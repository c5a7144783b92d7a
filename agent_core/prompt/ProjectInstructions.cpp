#include "agent_core/prompt/ProjectInstructions.h"

#include "agent_core/tools/WorkspacePath.h"
#include "common/Utf8.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::agent {

namespace {

// Up to `limit` bytes of a regular file opened without following a last symlink (resolveInWorkspace has
// resolved them all); nullopt when it is not a regular file or cannot be read.
std::optional<std::string> readPrefix(const std::filesystem::path& path, std::size_t limit, std::uint64_t& size) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return std::nullopt;
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return std::nullopt;
    }
    size = static_cast<std::uint64_t>(info.st_size);
    std::string text(std::min<std::uint64_t>(size, limit), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    text.resize(got);
    return text;
}

} // namespace

std::vector<InstructionFile> findProjectInstructions(const std::filesystem::path& workspace,
                                                     std::string_view workdir, std::size_t capBytes) {
    // The directories from the root down: "", "a", "a/b".
    std::vector<std::string> directories{""};
    const std::filesystem::path relative = std::filesystem::path(workdir).lexically_normal();
    std::string walked;
    for (const auto& part : relative) {
        const std::string name = part.string();
        if (name.empty() || name == "." || name == "..")
            continue;
        walked += (walked.empty() ? "" : "/") + name;
        directories.push_back(walked);
    }
    std::vector<InstructionFile> found;
    std::size_t left = capBytes;
    for (const auto& directory : directories) {
        for (const auto name : kInstructionFileNames) {
            const std::string path = (directory.empty() ? "" : directory + "/") + std::string(name);
            auto resolved = resolveInWorkspace(workspace, path);
            if (!resolved)
                continue; // a link out of the workspace, or a directory that is itself such a link
            InstructionFile file;
            auto text = readPrefix(*resolved, left, file.bytes);
            if (!text)
                continue;
            file.path = path;
            file.text = validUtf8(*text);
            file.truncated = file.bytes > text->size();
            left -= std::min(left, text->size());
            found.push_back(std::move(file));
            break;
        }
    }
    return found;
}

std::string instructionsMessage(const std::vector<InstructionFile>& files) {
    std::string out = "Instructions from the project, root first (a deeper file wins where they differ):";
    for (const auto& file : files) {
        out += "\n\n## " + file.path + "\n\n" + file.text;
        if (file.truncated)
            out += std::string(file.text.empty() || file.text.back() == '\n' ? "" : "\n") + "[... cut: " +
                   std::to_string(file.bytes - file.text.size()) + " more bytes of " + file.path +
                   " over the cap for project instructions; read_file it if you need the rest]";
    }
    return out;
}

} // namespace warren::agent
