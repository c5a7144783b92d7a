#include "agent_core/memory/MemoryBackendFactory.h"

#include "agent_core/memory/FileMemoryBackend.h"
#include "agent_core/memory/InMemoryBackend.h"
#include "agent_core/memory/MemoryNames.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace warren::agent {

namespace {

// mkdir -p of root's segments below the existing dir, with the errno of the first failure.
Status createPrefixDirs(const std::filesystem::path& dir, const std::string& prefix) {
    std::filesystem::path path = dir;
    for (const auto& segment : std::filesystem::path(prefix)) {
        path /= segment;
        if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
            const int error = errno;
            return makeError(ErrorCode::System, "memory store " + dir.string() + ": cannot create " +
                                                    path.string() + " for memory_prefix \"" + prefix +
                                                    "\": " + std::strerror(error));
        }
    }
    return Ok{};
}

} // namespace

Result<std::unique_ptr<MemoryBackend>> makeMemoryBackend(MemoryBackendKind kind,
                                                         const std::filesystem::path& dir,
                                                         const std::string& prefix, HostMemoryCall hostCall) {
    if (auto valid = validateMemoryPrefix(prefix); !valid)
        return valid.error();
    switch (kind) {
    case MemoryBackendKind::InMemory:
        return std::unique_ptr<MemoryBackend>(std::make_unique<InMemoryBackend>());
    case MemoryBackendKind::Host:
        if (!hostCall)
            return makeError(ErrorCode::Unsupported,
                             "memory_backend host needs the control plane, and this agent runs without one");
        return std::unique_ptr<MemoryBackend>(std::make_unique<HostMemoryBackend>(std::move(hostCall)));
    case MemoryBackendKind::Filesystem:
        break;
    }
    // The mount itself must be there: creating it would put memories where nothing keeps them.
    if (auto available = FileMemoryBackend(dir).checkAvailable(); !available)
        return available.error();
    if (auto created = createPrefixDirs(dir, prefix); !created)
        return created.error();
    auto backend = std::make_unique<FileMemoryBackend>(prefix.empty() ? dir : dir / prefix);
    if (auto available = backend->checkAvailable(); !available)
        return available.error();
    return std::unique_ptr<MemoryBackend>(std::move(backend));
}

} // namespace warren::agent
