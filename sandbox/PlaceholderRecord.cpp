#include "sandbox/PlaceholderRecord.h"

#include "common/WriteAll.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::sandbox {

using nlohmann::json;

namespace {

// A record is "rec-XXXXXX"; it is written as "tmp-XXXXXX" (locked before anything is in it) and renamed, so
// a sweep never reads one half written. A tmp- file is left by a launcher killed within those few calls,
// before it made any placeholder: nothing to do for it but ignore it.
constexpr const char* kRecordPrefix = "rec-";
constexpr const char* kWritingPrefix = "tmp-";
constexpr std::size_t kMaxRecordBytes = 64 * 1024;

bool isPlaceholder(const ProtectionEntry& entry) {
    return entry.kind == ProtectionEntry::Kind::PlaceholderFile ||
           entry.kind == ProtectionEntry::Kind::PlaceholderDir;
}

// The directory, made if missing; refused unless it is a directory of this user that no one else may enter
// (under /tmp, anyone could have made it first).
Result<std::string> recordDir() {
    const std::string dir = placeholderRecordDir();
    std::error_code ignored; // the parents as a user's XDG directories are made; the record's own below
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ignored);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return makeError(ErrorCode::System,
                         "cannot make " + dir +
                             " for the record of the sandbox's placeholders: " + std::strerror(errno));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() ||
        (st.st_mode & 077) != 0)
        return makeError(ErrorCode::System,
                         dir + " is not a private directory of this user (mode 0700, owned by uid " +
                             std::to_string(::getuid()) +
                             "); remove it, or name a private directory in WARREN_PLACEHOLDER_RECORDS");
    return dir;
}

json recordJson(Backend backend, const std::string& workspace, const DirectoryIdentity& identity,
                const ProtectionPlan& plan) {
    json placeholders = json::array();
    for (const auto& entry : plan.entries)
        if (isPlaceholder(entry))
            placeholders.push_back(
                {{"path", entry.relative},
                 {"kind", entry.kind == ProtectionEntry::Kind::PlaceholderDir ? "directory" : "file"}});
    return {{"backend", backendName(backend)},
            {"workspace", workspace},
            {"device", static_cast<std::uint64_t>(identity.device)},
            {"inode", static_cast<std::uint64_t>(identity.inode)},
            {"placeholders", placeholders}};
}

struct ReadRecord {
    Backend backend = Backend::Bwrap;
    std::string workspace;
    DirectoryIdentity identity;
    ProtectionPlan plan;
};

// The record as written above; nullopt for anything else. Paths are checked again where they are removed.
std::optional<ReadRecord> parseRecord(const std::string& text) {
    const json doc = json::parse(text, nullptr, false);
    if (!doc.is_object())
        return std::nullopt;
    const auto backend = doc.find("backend");
    const auto workspace = doc.find("workspace");
    const auto device = doc.find("device");
    const auto inode = doc.find("inode");
    const auto placeholders = doc.find("placeholders");
    if (backend == doc.end() || !backend->is_string() || workspace == doc.end() || !workspace->is_string() ||
        device == doc.end() || !device->is_number_unsigned() || inode == doc.end() ||
        !inode->is_number_unsigned() || placeholders == doc.end() || !placeholders->is_array())
        return std::nullopt;
    auto parsed = parseBackend(backend->get<std::string>());
    if (!parsed)
        return std::nullopt;
    ReadRecord record;
    record.backend = *parsed;
    record.workspace = workspace->get<std::string>();
    if (record.workspace.empty() || record.workspace.front() != '/')
        return std::nullopt;
    record.identity = {static_cast<dev_t>(device->get<std::uint64_t>()),
                       static_cast<ino_t>(inode->get<std::uint64_t>())};
    for (const json& item : *placeholders) {
        if (!item.is_object() || !item.contains("path") || !item["path"].is_string() ||
            !item.contains("kind") || !item["kind"].is_string())
            return std::nullopt;
        const std::string kind = item["kind"].get<std::string>();
        if (kind != "file" && kind != "directory")
            return std::nullopt;
        record.plan.entries.push_back(
            {item["path"].get<std::string>(), kind == "directory" ? ProtectionEntry::Kind::PlaceholderDir
                                                                  : ProtectionEntry::Kind::PlaceholderFile});
    }
    return record;
}

std::optional<std::string> readAll(int fd) {
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            return text;
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > kMaxRecordBytes)
            return std::nullopt;
    }
}

// Each record in the directory, opened; a visitor sees the opened file and its name.
template <typename Visit> void eachRecord(const std::string& dir, Visit visit) {
    DIR* listing = ::opendir(dir.c_str());
    if (!listing)
        return;
    std::vector<std::string> names;
    while (dirent* entry = ::readdir(listing))
        if (std::string_view(entry->d_name).starts_with(kRecordPrefix))
            names.emplace_back(entry->d_name);
    ::closedir(listing);
    for (const auto& name : names) {
        const std::string path = dir + "/" + name;
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat st {};
        if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::getuid())
            continue;
        visit(path, fd);
    }
}

} // namespace

std::string placeholderRecordDir() {
    const auto absolute = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value && *value == '/' ? value : "";
    };
    if (std::string dir = absolute("WARREN_PLACEHOLDER_RECORDS"); !dir.empty())
        return dir;
    if (std::string state = absolute("XDG_STATE_HOME"); !state.empty())
        return state + "/warren/placeholder-records";
    if (std::string home = absolute("HOME"); !home.empty() && home != "/")
        return home + "/.local/state/warren/placeholder-records";
    return "/tmp/warren-placeholder-records-" + std::to_string(::getuid());
}

Result<PlaceholderRecord> PlaceholderRecord::write(Backend backend, const std::string& workspace,
                                                   const ProtectionPlan& plan) {
    PlaceholderRecord record;
    record.m_workspace = workspace;
    record.m_plan = plan;
    if (std::none_of(plan.entries.begin(), plan.entries.end(), isPlaceholder))
        return record;
    const UniqueFd root(::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat rootStat {};
    if (!root.valid() || ::fstat(root.get(), &rootStat) != 0)
        return makeError(ErrorCode::System,
                         "cannot open the workspace " + workspace + ": " + std::strerror(errno));
    auto dir = recordDir();
    if (!dir)
        return dir.error();
    std::string writing = *dir + "/" + kWritingPrefix + "XXXXXX";
    UniqueFd fd(::mkostemp(writing.data(), O_CLOEXEC));
    if (!fd.valid())
        return makeError(ErrorCode::System, "cannot write a record in " + *dir + ": " + std::strerror(errno));
    const std::string text =
        recordJson(backend, workspace, {rootStat.st_dev, rootStat.st_ino}, plan).dump() + "\n";
    const std::string final = *dir + "/" + kRecordPrefix + writing.substr(writing.size() - 6);
    if (::flock(fd.get(), LOCK_EX) != 0 || !writeAll(fd.get(), text) || ::fsync(fd.get()) != 0 ||
        ::rename(writing.c_str(), final.c_str()) != 0) {
        const int error = errno;
        ::unlink(writing.c_str());
        return makeError(ErrorCode::System, "cannot write the record of the sandbox's placeholders in " +
                                                *dir + ": " + std::strerror(error));
    }
    record.m_identity = DirectoryIdentity{rootStat.st_dev, rootStat.st_ino};
    record.m_path = final;
    record.m_lock = std::move(fd);
    return record;
}

void PlaceholderRecord::clear() {
    if (!m_workspace.empty())
        removePlaceholders(m_workspace, m_plan, m_identity);
    if (!m_path.empty())
        ::unlink(m_path.c_str());
    m_path.clear();
    m_lock.reset();
    m_plan = {};
}

PlaceholderSweep sweepPlaceholderRecords(const std::vector<Backend>& backends) {
    PlaceholderSweep sweep;
    eachRecord(placeholderRecordDir(), [&](const std::string& path, const UniqueFd& fd) {
        // Locked: its launcher lives. The link count: another sweep got to it first and deleted it.
        struct stat st {};
        if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 || ::fstat(fd.get(), &st) != 0 || st.st_nlink == 0)
            return;
        const auto text = readAll(fd.get());
        const auto record = text ? parseRecord(*text) : std::nullopt;
        if (record && std::find(backends.begin(), backends.end(), record->backend) == backends.end())
            return; // another backend's: its sandbox may still be running
        if (record) {
            const PlaceholderRemoval removal =
                removePlaceholders(record->workspace, record->plan, record->identity);
            for (const auto& relative : removal.removed)
                sweep.removed.push_back(record->workspace + "/" + relative);
            for (const auto& relative : removal.kept)
                sweep.kept.push_back(record->workspace + "/" + relative);
        }
        // One that does not read as a record names nothing that could be removed safely: it goes too.
        ::unlink(path.c_str());
        ++sweep.records;
    });
    return sweep;
}

std::vector<std::string> recordedPlaceholders(const std::string& workspace) {
    std::vector<std::string> paths;
    eachRecord(placeholderRecordDir(), [&](const std::string&, const UniqueFd& fd) {
        const auto text = readAll(fd.get());
        const auto record = text ? parseRecord(*text) : std::nullopt;
        if (!record || record->workspace != workspace)
            return;
        for (const auto& entry : record->plan.entries)
            paths.push_back(workspace + "/" + entry.relative);
    });
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

} // namespace warren::sandbox
