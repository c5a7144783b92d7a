#include "agent_core/memory/FileMemoryBackend.h"

#include "agent_core/memory/MemoryNames.h"
#include "agent_core/memory/MemoryRanking.h"
#include "agent_core/state/AtomicFile.h"
#include "common/FileText.h"
#include "common/JsonFields.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace warren::agent {

namespace {

constexpr std::size_t kMaxPlainName = 200;
constexpr std::size_t kKeptBeforeHash = 180;

bool isPlainByte(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

std::uint64_t fnv1a64(std::string_view bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

const char* kFix = "; mount one or use --preset local-light";

} // namespace

std::string encodeMemoryKey(std::string_view key) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string name;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = key[i];
        if (isPlainByte(c) && !(i == 0 && c == '.')) {
            name += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            name += '%';
            name += kHex[byte >> 4];
            name += kHex[byte & 0xf];
        }
    }
    if (name.size() <= kMaxPlainName)
        return name;
    std::size_t keep = kKeptBeforeHash;
    // Do not cut an escape in two.
    if (name[keep - 1] == '%')
        keep -= 1;
    else if (name[keep - 2] == '%')
        keep -= 2;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(key)));
    return name.substr(0, keep) + "~" + hash;
}

FileMemoryBackend::FileMemoryBackend(std::filesystem::path root) : m_root(std::move(root)) {}

Status FileMemoryBackend::checkAvailable() const {
    struct stat info {};
    if (::stat(m_root.c_str(), &info) != 0) {
        const int error = errno;
        return makeError(ErrorCode::NotFound, "memory store " + m_root.string() +
                                                  " is not available: " + std::strerror(error) + kFix);
    }
    if (!S_ISDIR(info.st_mode))
        return makeError(ErrorCode::InvalidArgument, "memory store " + m_root.string() +
                                                         " is not available: it is not a directory" + kFix);
    if (::access(m_root.c_str(), W_OK | X_OK) != 0) {
        const int error = errno;
        return makeError(ErrorCode::System, "memory store " + m_root.string() +
                                                " is not writable: " + std::strerror(error) +
                                                "; mount it read-write or use --preset local-light");
    }
    return Ok{};
}

Result<MemoryEntry> FileMemoryBackend::readEntry(const std::filesystem::path& file,
                                                 const std::string& ns) const {
    auto text = readFileText(file);
    if (!text)
        return text.error();
    const auto corrupt = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "memory entry " + file.string() + " is corrupt: " + why + "; move it away");
    };
    auto document = json_fields::parseJson(text.value());
    if (!document)
        return corrupt("not JSON: " + document.error().message);
    using namespace json_fields;
    const std::string where = "entry";
    Error error;
    MemoryEntry entry;
    if (!take(requireObject(document.value(), where), error) ||
        !take(checkKeys(document.value(), {"namespace", "key", "value"}, where), error) ||
        !take(getString(document.value(), "namespace", where), entry.ns, error) ||
        !take(getString(document.value(), "key", where), entry.key, error) ||
        !take(getString(document.value(), "value", where), entry.value, error))
        return corrupt(error.message);
    if (entry.ns != ns)
        return corrupt("its namespace \"" + entry.ns + "\" is not its directory's");
    return entry;
}

Result<std::optional<std::string>> FileMemoryBackend::get(const std::string& ns, const std::string& key) {
    if (auto valid = validateNamespace(ns); !valid)
        return valid.error();
    if (auto valid = validateMemoryKey(key); !valid)
        return valid.error();
    auto entry = readEntry(m_root / ns / encodeMemoryKey(key), ns);
    if (!entry) {
        if (entry.error().code != ErrorCode::NotFound)
            return entry.error();
        // A missing entry is an answer; a missing store is not.
        if (auto available = checkAvailable(); !available)
            return available.error();
        return std::optional<std::string>();
    }
    // Another key whose long name hashed the same: not this one.
    if (entry->key != key)
        return std::optional<std::string>();
    return std::optional<std::string>(std::move(entry->value));
}

Status FileMemoryBackend::put(const MemoryEntry& entry) {
    if (auto valid = validateNamespace(entry.ns); !valid)
        return valid.error();
    if (auto valid = validateMemoryKey(entry.key); !valid)
        return valid.error();
    if (auto available = checkAvailable(); !available)
        return available.error();
    const auto dir = m_root / entry.ns;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        const int error = errno;
        return makeError(ErrorCode::System, "memory store " + m_root.string() + ": cannot create " +
                                                dir.string() + ": " + std::strerror(error));
    }
    const auto file = dir / encodeMemoryKey(entry.key);
    if (auto existing = readEntry(file, entry.ns); existing && existing->key != entry.key)
        return makeError(ErrorCode::InvalidArgument,
                         "key \"" + entry.key + "\" shares its file " + file.string() + " with key \"" +
                             existing->key + "\" (a hash collision of long keys): use another key");
    const nlohmann::json content = {{"namespace", entry.ns}, {"key", entry.key}, {"value", entry.value}};
    auto written = writeFileAtomically(
        file, content.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", false);
    if (!written)
        return makeError(written.error().code,
                         "memory store " + m_root.string() + ": " + written.error().message);
    return Ok{};
}

Result<std::vector<MemoryEntry>> FileMemoryBackend::search(std::string_view query, std::size_t limit,
                                                           bool ranked) {
    if (auto available = checkAvailable(); !available)
        return available.error();
    std::vector<MemoryEntry> all;
    std::error_code error;
    for (auto dir = std::filesystem::directory_iterator(m_root, error);
         !error && dir != std::filesystem::directory_iterator(); dir.increment(error)) {
        const std::string ns = dir->path().filename().string();
        // Only namespace directories: a prefix's deeper directories and anything else are not ours.
        if (!validateNamespace(ns) || !dir->is_directory())
            continue;
        for (auto file = std::filesystem::directory_iterator(dir->path(), error);
             !error && file != std::filesystem::directory_iterator(); file.increment(error)) {
            // Skip temp files ('.'-names) of writes in progress or killed.
            if (file->path().filename().string().front() == '.' || !file->is_regular_file())
                continue;
            auto entry = readEntry(file->path(), ns);
            if (!entry) {
                // Removed between listing and reading: a concurrent writer's rename, not a problem.
                if (entry.error().code == ErrorCode::NotFound)
                    continue;
                return entry.error();
            }
            all.push_back(std::move(entry).value());
        }
        if (error)
            break;
    }
    if (error)
        return makeError(ErrorCode::System,
                         "memory store " + m_root.string() + ": cannot list it: " + error.message());
    return rankMemory(std::move(all), query, limit, ranked);
}

} // namespace warren::agent
