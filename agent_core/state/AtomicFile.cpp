#include "agent_core/state/AtomicFile.h"

#include "common/FileText.h"
#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <system_error>
#include <unistd.h>

namespace warren::agent {

namespace {

constexpr std::string_view kTempMarker = ".tmp-";

// A random suffix, not the pid: agents in different sandboxes sharing a directory all run as pid 1 or 2.
std::string randomSuffix() {
    thread_local std::mt19937_64 generator{std::random_device{}()};
    char text[17];
    std::snprintf(text, sizeof text, "%08llx", static_cast<unsigned long long>(generator() & 0xffffffffULL));
    return text;
}

} // namespace

bool isTempFileOf(std::string_view name, std::string_view target) {
    return name.size() > 1 + target.size() + kTempMarker.size() && name.front() == '.' &&
           name.substr(1, target.size()) == target &&
           name.substr(1 + target.size(), kTempMarker.size()) == kTempMarker;
}

Result<std::uint64_t> writeFileAtomically(const std::filesystem::path& target, std::string_view bytes,
                                          bool durable, mode_t mode) {
    const std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
    const std::string name = target.filename().string();

    std::filesystem::path temp;
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
        temp = dir / ("." + name + std::string(kTempMarker) + randomSuffix());
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) {
            const int error = errno;
            return fileError("cannot create " + temp.string(), error);
        }
    }
    if (fd < 0)
        return fileError("cannot create a temp file for " + target.string(), EEXIST);

    UniqueFd file(fd);
    // errno is read first: building the message may allocate.
    const auto fail = [&](const char* action, const std::string& object) -> Error {
        const int error = errno;
        ::unlink(temp.c_str());
        return fileError(action + object, error);
    };
    if (!writeAll(file.get(), bytes))
        return fail("writing ", temp.string());
    if (durable && ::fdatasync(file.get()) != 0)
        return fail("syncing ", temp.string());
    // close(2) can report a write error (NFS, quota) that write(2) did not.
    if (::close(file.release()) != 0)
        return fail("writing ", temp.string());
    if (::rename(temp.c_str(), target.c_str()) != 0)
        return fail("renaming the new content over ", target.string());
    if (durable) {
        UniqueFd directory(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (directory.get() < 0 || ::fsync(directory.get()) != 0) {
            const int error = errno;
            return fileError(target.string() + " was written but syncing its directory " + dir.string() +
                                   " failed",
                               error);
        }
    }
    return static_cast<std::uint64_t>(bytes.size());
}

std::size_t removeLeftoverTemps(const std::filesystem::path& target) {
    const std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
    const std::string name = target.filename().string();
    std::size_t removed = 0;
    std::error_code error;
    for (auto it = std::filesystem::directory_iterator(dir, error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        if (isTempFileOf(it->path().filename().string(), name) && ::unlink(it->path().c_str()) == 0)
            ++removed;
    }
    return removed;
}

} // namespace warren::agent
