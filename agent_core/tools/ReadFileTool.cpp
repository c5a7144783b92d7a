#include "agent_core/tools/ReadFileTool.h"

#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/ToolStop.h"
#include "agent_core/tools/ToolText.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WorkspaceSnapshot.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

struct FdCloser {
    int fd = -1;
    ~FdCloser() {
        if (fd >= 0)
            ::close(fd);
    }
};

// Opens a resolved workspace path for reading. O_NOFOLLOW: the path was resolved free of symlinks, so a
// symlink found here was planted since. O_NONBLOCK: opening a FIFO must not hang the agent.
Result<int> openRegularFile(const fs::path& path, const std::string& shown, struct stat& status) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return makeError(ErrorCode::NotFound, "no such file: " + shown);
        if (errno == ELOOP)
            return makeError(ErrorCode::InvalidArgument,
                             shown + " became a symlink while it was opened; try again");
        return makeError(ErrorCode::System, shown + ": " + std::strerror(errno));
    }
    FdCloser closer{fd};
    if (::fstat(fd, &status) != 0)
        return makeError(ErrorCode::System, shown + ": " + std::strerror(errno));
    if (S_ISDIR(status.st_mode))
        return makeError(ErrorCode::InvalidArgument,
                         shown + " is a directory; list_files shows what it holds");
    if (!S_ISREG(status.st_mode))
        return makeError(ErrorCode::InvalidArgument, shown + " is not a regular file");
    closer.fd = -1;
    return fd;
}

// read(2) until size bytes or the end of the file.
ssize_t readFully(int fd, char* buffer, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, buffer + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(done);
}

std::string lineNumber(std::uint64_t number) {
    std::string digits = std::to_string(number);
    return std::string(digits.size() < 6 ? 6 - digits.size() : 0, ' ') + digits + "\t";
}

// The lines [offset, offset + limit) of a file streamed in chunks, numbered, into capped output.
class LineWindow {
public:
    LineWindow(std::uint64_t offset, std::uint64_t limit, std::size_t outputLimit)
        : m_offset(offset), m_end(offset + limit < offset ? UINT64_MAX : offset + limit),
          m_keepBytes(outputLimit + 1), m_output(outputLimit) {}

    // false once nothing more is wanted: past the window, or the output is full.
    bool feed(std::string_view chunk) {
        while (!chunk.empty()) {
            if (m_line >= m_end) {
                m_moreAfterWindow = true;
                return false;
            }
            const std::size_t newline = chunk.find('\n');
            const std::string_view piece = chunk.substr(0, newline);
            m_inLine = true;
            if (m_line >= m_offset && m_current.size() < m_keepBytes)
                m_current.append(piece.substr(0, m_keepBytes - m_current.size()));
            if (m_line >= m_offset && m_current.size() >= m_keepBytes) {
                finishLine(); // longer than the output limit: no need to read the rest of it
                return false;
            }
            if (newline == std::string_view::npos)
                return true;
            chunk.remove_prefix(newline + 1);
            finishLine();
            if (m_output.full())
                return false;
        }
        return true;
    }

    void finish() {
        if (m_inLine)
            finishLine();
    }

    std::uint64_t linesSeen() const { return m_line; }
    std::uint64_t linesShown() const { return m_shown; }
    bool moreAfterWindow() const { return m_moreAfterWindow; }
    bool outputFull() const { return m_output.full(); }
    std::string takeOutput() { return m_output.take(); }

private:
    void finishLine() {
        if (m_line >= m_offset && !m_output.full()) {
            if (m_output.append(lineNumber(m_line + 1) + validUtf8(m_current) + "\n"))
                ++m_shown;
        }
        m_current.clear();
        m_inLine = false;
        ++m_line;
    }

    std::uint64_t m_offset;
    std::uint64_t m_end;
    std::size_t m_keepBytes;
    CappedOutput m_output;
    std::string m_current;
    std::uint64_t m_line = 0; // 0-based index of the line being read
    std::uint64_t m_shown = 0;
    bool m_inLine = false; // bytes of an unfinished line were read
    bool m_moreAfterWindow = false;
};

} // namespace

bool looksBinary(std::string_view head) {
    return head.substr(0, kBinaryProbeBytes).find('\0') != std::string_view::npos;
}

protocol::ToolSpec ReadFileTool::spec() {
    return {
        std::string(kName),
        "Read a text file in the workspace; lines come numbered like cat -n, " +
            std::to_string(kDefaultLimit) + " lines at a time by default.",
        json{
            {"type", "object"},
            {"properties",
             {{"path",
               {{"type", "string"}, {"description", "File path, relative to /workspace or under it"}}},
              {"offset",
               {{"type", "integer"},
                {"minimum", 0},
                {"description", "First line to read, 0-based (default 0)"}}},
              {"limit",
               {{"type", "integer"},
                {"minimum", 1},
                {"description", "How many lines to read (default " + std::to_string(kDefaultLimit) + ")"}}}}},
            {"required", {"path"}},
            {"additionalProperties", false}}};
}

ToolOutcome ReadFileTool::run(const json& arguments, const ToolEnv& env) {
    const std::string tool(kName);
    auto reader = ToolArguments::read(kName, arguments, {"path", "offset", "limit"});
    if (!reader)
        return failure(reader.error().message);
    auto path = reader->string("path");
    auto offset = reader->optionalUint("offset");
    auto limit = reader->optionalUint("limit");
    for (const Error* error : {path ? nullptr : &path.error(), offset ? nullptr : &offset.error(),
                               limit ? nullptr : &limit.error()})
        if (error)
            return failure(error->message);
    const std::uint64_t first = offset->value_or(0);
    const std::uint64_t count = limit->value_or(kDefaultLimit);
    if (count == 0)
        return failure(tool + ": limit must be at least 1");

    auto resolved = resolveInWorkspace(env.workspace, *path);
    if (!resolved)
        return failure(tool + ": " + resolved.error().message);
    const std::string shown = relativeToWorkspace(env.workspace, *resolved);
    struct stat status {};
    auto fd = openRegularFile(*resolved, shown, status);
    if (!fd)
        return failure(tool + ": " + fd.error().message);
    FdCloser closer{*fd};

    std::string buffer(kChunkBytes, '\0');
    LineWindow window(first, count, env.outputLimitBytes);
    bool firstChunk = true;
    bool empty = true;
    for (;;) {
        if (const StopReason why = stopReason(env); why != StopReason::None)
            return stoppedOutcome(kName, why, window.takeOutput());
        // The first read is the binary probe, so it must hold the whole probe unless the file is shorter.
        const ssize_t n = firstChunk ? readFully(*fd, buffer.data(), kBinaryProbeBytes)
                                     : ::read(*fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failure(tool + ": " + shown + ": " + std::strerror(errno));
        if (n == 0)
            break;
        const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
        if (firstChunk && looksBinary(chunk))
            return failure(tool + ": " + shown +
                           " is a binary file (it has NUL bytes); it cannot be shown as text");
        firstChunk = false;
        empty = false;
        if (!window.feed(chunk))
            break;
    }
    window.finish();

    ToolOutcome outcome;
    if (empty) {
        outcome.output = "(" + shown + " is empty)";
        return outcome;
    }
    if (window.linesShown() == 0 && !window.outputFull())
        return failure(tool + ": offset " + std::to_string(first) + " is past the end of " + shown +
                       " (it has " + std::to_string(window.linesSeen()) + " lines)");
    outcome.output = window.takeOutput();
    const std::uint64_t next = first + window.linesShown();
    if (window.outputFull()) {
        outcome.truncated = true;
        if (window.linesShown() == 0)
            outcome.output += "\n[line " + std::to_string(first + 1) +
                              " is longer than the output limit of " + std::to_string(env.outputLimitBytes) +
                              " bytes; only its start is shown. Use offset=" + std::to_string(first + 1) +
                              " to read past it]";
        else
            outcome.output += "\n[output limit of " + std::to_string(env.outputLimitBytes) +
                              " bytes reached after line " + std::to_string(next) +
                              "; use offset=" + std::to_string(next) + " to read on]";
    } else if (window.moreAfterWindow()) {
        outcome.output += "[lines " + std::to_string(first + 1) + "-" + std::to_string(next) + " shown; " +
                          shown + " goes on: use offset=" + std::to_string(next) + " to read on]";
    }
    return outcome;
}

std::optional<std::string> ReadFileTool::contentKey(const json& arguments, const ToolEnv& env) const {
    auto reader = ToolArguments::read(kName, arguments, {"path", "offset", "limit"});
    if (!reader)
        return std::nullopt;
    auto path = reader->string("path");
    if (!path)
        return std::nullopt;
    auto resolved = resolveInWorkspace(env.workspace, *path);
    struct stat status {};
    if (!resolved || ::lstat(resolved->c_str(), &status) != 0 || changedWithinCurrentTick(status))
        return std::nullopt;
    IdentityDigest digest;
    digest.add(kName);
    digest.add(resolved->native());
    digest.add(identityOf(status));
    digest.add(std::uint64_t{env.outputLimitBytes});
    return digest.hex();
}

Result<TextFile> readWholeFile(const fs::path& path, const std::string& shown, std::size_t maxBytes) {
    TextFile file;
    auto fd = openRegularFile(path, shown, file.status);
    if (!fd)
        return fd.error();
    FdCloser closer{*fd};
    auto tooLarge = [&](std::uint64_t size) {
        return makeError(ErrorCode::InvalidArgument, shown + " is too large (" + std::to_string(size) +
                                                         " bytes; the limit is " + std::to_string(maxBytes) +
                                                         ")");
    };
    const auto size = static_cast<std::uint64_t>(std::max<off_t>(file.status.st_size, 0));
    if (size > maxBytes)
        return tooLarge(size);
    // One byte more than the limit, to notice a file that grew since fstat.
    file.content.resize(static_cast<std::size_t>(size) + 1);
    std::size_t done = 0;
    for (;;) {
        if (done == file.content.size()) {
            if (done > maxBytes)
                return tooLarge(done);
            file.content.resize(std::min(done * 2, maxBytes + 1));
        }
        const ssize_t n = readFully(*fd, file.content.data() + done, file.content.size() - done);
        if (n < 0)
            return makeError(ErrorCode::System, shown + ": " + std::strerror(errno));
        if (n == 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    file.content.resize(done);
    return file;
}

Result<TextFile> readTextFile(const fs::path& path, const std::string& shown, std::size_t maxBytes) {
    auto file = readWholeFile(path, shown, maxBytes);
    if (file && looksBinary(file->content))
        return makeError(ErrorCode::InvalidArgument, shown + " is a binary file (it has NUL bytes)");
    return file;
}

} // namespace warren::agent
