#include "app/remote/WorkspaceManifest.h"

#include "common/JsonFields.h"
#include "common/UniqueFd.h"

#include <functional>
#include <QByteArray>
#include <QCryptographicHash>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace warren::remote {

namespace jf = json_fields;

struct Sha256::State {
    QCryptographicHash hash{QCryptographicHash::Sha256};
};

Sha256::Sha256() : m_state(std::make_unique<State>()) {}
Sha256::~Sha256() = default;

void Sha256::add(const char* data, std::size_t size) {
    m_state->hash.addData(QByteArrayView(data, static_cast<qsizetype>(size)));
}

std::string Sha256::hex() {
    return m_state->hash.result().toHex().toStdString();
}

Status readChunks(int fd, const std::string& name, const std::function<void(const char*, std::size_t)>& take) {
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return makeError(ErrorCode::System, "cannot read \"" + name + "\": " + std::strerror(errno));
        if (n == 0)
            return Ok{};
        take(buffer, static_cast<std::size_t>(n));
    }
}

Result<std::string> fileSha256(const std::filesystem::path& file, const std::string& name) {
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid())
        return makeError(ErrorCode::System, "cannot read \"" + name + "\": " + std::strerror(errno));
    Sha256 hash;
    if (auto read = readChunks(fd.get(), name, [&](const char* bytes, std::size_t size) { hash.add(bytes, size); });
        !read)
        return read.error();
    return hash.hex();
}

WorkspaceManifest::WorkspaceManifest(std::vector<ManifestEntry> entries) : m_entries(std::move(entries)) {
    std::sort(m_entries.begin(), m_entries.end(),
              [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
}

const ManifestEntry* WorkspaceManifest::find(const std::string& path) const {
    const auto at =
        std::lower_bound(m_entries.begin(), m_entries.end(), path,
                         [](const ManifestEntry& entry, const std::string& p) { return entry.path < p; });
    return at != m_entries.end() && at->path == path ? &*at : nullptr;
}

nlohmann::json WorkspaceManifest::toJson() const {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& entry : m_entries) {
        if (entry.type == ManifestEntry::Type::File)
            entries.push_back({{"path", entry.path},
                               {"type", "file"},
                               {"size", entry.size},
                               {"sha256", entry.sha256},
                               {"executable", entry.executable}});
        else
            entries.push_back({{"path", entry.path}, {"type", "symlink"}, {"target", entry.target}});
    }
    return {{"version", 1}, {"entries", std::move(entries)}};
}

namespace {

bool isSha256Hex(const std::string& text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

Result<ManifestEntry> readEntry(const nlohmann::json& json, const std::string& where) {
    Error error;
    if (auto object = jf::requireObject(json, where); !object)
        return object.error();
    ManifestEntry entry;
    std::string type;
    if (!jf::take(jf::getString(json, "path", where), entry.path, error) ||
        !jf::take(jf::getString(json, "type", where), type, error))
        return error;
    if (entry.path.empty())
        return makeError(ErrorCode::InvalidArgument, where + ": the path is empty");
    if (type == "file") {
        if (auto keys = jf::checkKeys(json, {"path", "type", "size", "sha256", "executable"}, where); !keys)
            return keys.error();
        if (!jf::take(jf::getUint(json, "size", where), entry.size, error) ||
            !jf::take(jf::getString(json, "sha256", where), entry.sha256, error) ||
            !jf::take(jf::getBool(json, "executable", where), entry.executable, error))
            return error;
        if (!isSha256Hex(entry.sha256))
            return makeError(ErrorCode::InvalidArgument,
                             where + ": \"sha256\" is not 64 lowercase hex digits");
        return entry;
    }
    if (type == "symlink") {
        if (auto keys = jf::checkKeys(json, {"path", "type", "target"}, where); !keys)
            return keys.error();
        entry.type = ManifestEntry::Type::Symlink;
        if (!jf::take(jf::getString(json, "target", where), entry.target, error))
            return error;
        return entry;
    }
    return makeError(ErrorCode::InvalidArgument,
                     where + ": \"type\" must be \"file\" or \"symlink\", got \"" + type + "\"");
}

} // namespace

Result<WorkspaceManifest> WorkspaceManifest::fromJson(const nlohmann::json& json) {
    const std::string where = "the workspace manifest";
    if (auto object = jf::requireObject(json, where); !object)
        return object.error();
    if (auto keys = jf::checkKeys(json, {"version", "entries"}, where); !keys)
        return keys.error();
    auto version = jf::getUint(json, "version", where);
    if (!version)
        return version.error();
    if (*version != 1)
        return makeError(ErrorCode::Unsupported, where + " has version " + std::to_string(*version) +
                                                     ", which this Warren does not read (it reads 1)");
    if (!json.contains("entries") || !json.at("entries").is_array())
        return makeError(ErrorCode::InvalidArgument, where + ": \"entries\" must be an array");
    std::vector<ManifestEntry> read;
    for (const auto& item : json.at("entries")) {
        auto entry = readEntry(item, where + ", entry " + std::to_string(read.size()));
        if (!entry)
            return entry.error();
        read.push_back(std::move(*entry));
    }
    WorkspaceManifest manifest(std::move(read));
    for (std::size_t i = 1; i < manifest.m_entries.size(); ++i)
        if (manifest.m_entries[i].path == manifest.m_entries[i - 1].path)
            return makeError(ErrorCode::InvalidArgument,
                             where + " names \"" + manifest.m_entries[i].path + "\" twice");
    return manifest;
}

} // namespace warren::remote
