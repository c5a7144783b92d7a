#include "server/accounts/TenantSkillPacks.h"

#include "agent_core/skills/SkillDiscovery.h"
#include "agent_core/skills/SkillFile.h"
#include "common/FileText.h"
#include "common/RemoveTree.h"
#include "server/accounts/AccountStore.h"
#include "server/uploads/WorkspaceCopy.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

namespace warren::accounts {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTenantSkills = "tenant-skills";
constexpr const char* kIncoming = ".incoming"; // hidden, and in no tenant's folder: no sandbox sees it

Error refused(const std::string& skill, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "skill " + skill + ": " + why);
}

Error systemError(const std::string& what, int error) {
    return makeError(ErrorCode::System, "cannot " + what + ": " + std::strerror(error));
}

// A directory made with mode (whatever the umask), or one that is there already, left as it is: warrend and
// the operator's `warrend admin` may be different users, and neither may change the other's.
Status makeDir(const fs::path& path, mode_t mode) {
    const bool made = ::mkdir(path.c_str(), mode) == 0;
    if (!made && errno != EEXIST)
        return systemError("create " + path.string(), errno);
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
        return makeError(ErrorCode::System, path.string() + " is not a directory");
    if (made && ::chmod(path.c_str(), mode) != 0)
        return systemError("set the mode of " + path.string(), errno);
    return Ok{};
}

// What the copy does not see: a hard link (a file that is also another, which may be outside the folder:
// /etc/shadow linked in where protected_hardlinks is off) and a file larger than one skill's file may be.
// Directories are not followed through links (the copy refuses those that lead out).
Status checkSkillFiles(const fs::path& folder, const std::string& skill) {
    std::error_code error;
    std::uint64_t entries = 0;
    for (fs::recursive_directory_iterator it(folder, fs::directory_options::none, error), end;
         !error && it != end; it.increment(error)) {
        if (++entries > kMaxSkillEntries)
            return refused(skill, "more than " + std::to_string(kMaxSkillEntries) + " files and folders");
        const fs::path relative = it->path().lexically_relative(folder);
        struct stat status {};
        if (::lstat(it->path().c_str(), &status) != 0)
            return systemError("examine " + it->path().string(), errno);
        if (!S_ISREG(status.st_mode))
            continue;
        if (status.st_nlink > 1)
            return refused(skill, relative.string() + " is a hard link (" + std::to_string(status.st_nlink) +
                                      " names for one file): copy the file in its place");
        if (static_cast<std::uint64_t>(status.st_size) > kMaxSkillPackFileBytes)
            return refused(skill, relative.string() + " has " + std::to_string(status.st_size) +
                                      " bytes, more than " + std::to_string(kMaxSkillPackFileBytes));
    }
    if (error)
        return systemError("read " + folder.string(), error.value());
    return Ok{};
}

// The copy's refusal, said of a skill rather than of the upload whose policy it applies.
std::string copyRefusal(std::string message) {
    for (const std::string_view said :
         {std::string_view("the upload is refused: "), std::string_view(" (at offset 0)")})
        if (const auto at = message.find(said); at != std::string::npos)
            message.erase(at, said.size());
    if (const auto at = message.find("takes the upload past"); at != std::string::npos)
        message.replace(at, std::string_view("takes the upload past").size(), "takes the skill past");
    return message;
}

// The copy's SKILL.md, as the agent reads it, naming its folder.
Status checkSkillFile(const fs::path& copy, const std::string& skill) {
    const fs::path file = copy / std::string(agent::kSkillFileName);
    struct stat status {};
    if (::lstat(file.c_str(), &status) != 0 || !S_ISREG(status.st_mode))
        return refused(skill, "no SKILL.md file in it (a link is not one)");
    if (static_cast<std::uint64_t>(status.st_size) > agent::kMaxSkillFileBytes)
        return refused(skill,
                       "its SKILL.md has more than " + std::to_string(agent::kMaxSkillFileBytes) + " bytes");
    auto text = readFileText(file);
    if (!text)
        return refused(skill, text.error().message);
    auto document = agent::parseSkillFile(*text);
    if (!document)
        return refused(skill, "SKILL.md: " + document.error().message);
    if (document->name != skill)
        return refused(skill,
                       "its SKILL.md names it \"" + document->name +
                           "\": name the folder as its SKILL.md does, as the Agent Skills format asks");
    return Ok{};
}

// World-readable for the sandbox's user, who owns none of it; nothing setuid, nothing writable but by us.
Status openUp(const fs::path& copy) {
    if (::chmod(copy.c_str(), 0755) != 0)
        return systemError("set the mode of " + copy.string(), errno);
    std::error_code error;
    for (fs::recursive_directory_iterator it(copy, fs::directory_options::none, error), end;
         !error && it != end; it.increment(error)) {
        struct stat status {};
        if (::lstat(it->path().c_str(), &status) != 0)
            return systemError("examine " + it->path().string(), errno);
        if (S_ISLNK(status.st_mode))
            continue;
        const mode_t mode = S_ISDIR(status.st_mode) || (status.st_mode & S_IXUSR) ? 0755 : 0644;
        if (::chmod(it->path().c_str(), mode) != 0)
            return systemError("set the mode of " + it->path().string(), errno);
    }
    if (error)
        return systemError("read " + copy.string(), error.value());
    return Ok{};
}

// Puts the checked copy at target: exchanged with what is there (then removed), or renamed where nothing is.
Result<bool> putInPlace(const fs::path& copy, const fs::path& target) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (::renameat2(AT_FDCWD, copy.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
            if (auto removed = files::removeTree(copy); !removed) // the skill it replaced
                return removed.error();
            return true;
        }
        if (errno != ENOENT)
            return systemError("put " + target.string() + " in place", errno);
        if (::renameat2(AT_FDCWD, copy.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0)
            return false;
        if (errno != EEXIST) // another install put one there meanwhile: exchange with it
            return systemError("put " + target.string() + " in place", errno);
    }
    return makeError(ErrorCode::System, target.string() + " kept changing while it was installed: try again");
}

// A folder of its own under tenant-skills/.incoming, removed when this goes.
class Staging {
public:
    static Result<Staging> make(const fs::path& root, const std::string& tenant) {
        if (auto made = makeDir(root / kIncoming, 0700); !made)
            return made.error();
        std::string name = (root / kIncoming / (tenant + "-XXXXXX")).string();
        if (!::mkdtemp(name.data()))
            return systemError("create a folder in " + (root / kIncoming).string(), errno);
        return Staging(name);
    }
    Staging(Staging&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
    Staging& operator=(Staging&&) = delete;
    ~Staging() {
        if (!m_path.empty())
            (void)files::removeTree(m_path);
    }
    const fs::path& path() const { return m_path; }

private:
    explicit Staging(fs::path path) : m_path(std::move(path)) {}
    fs::path m_path;
};

Result<std::vector<std::string>> skillFolders(const fs::path& source) {
    struct stat status {};
    if (::stat(source.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
        return makeError(ErrorCode::InvalidArgument, source.string() + " is not a folder of skills");
    std::vector<std::string> skills;
    std::error_code error;
    for (fs::directory_iterator it(source, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with("."))
            continue; // hidden (.git): the agent reads no hidden folder as a skill either
        struct stat entry {};
        if (::lstat(it->path().c_str(), &entry) != 0)
            return systemError("examine " + it->path().string(), errno);
        if (S_ISLNK(entry.st_mode))
            return refused(name, "is a symbolic link, which is not followed: put the folder itself there");
        if (!S_ISDIR(entry.st_mode))
            continue; // README, LICENSE: the pack's, not a skill
        if (!agent::isValidSkillName(name))
            return refused("\"" + name + "\"", "a skill's folder is named as its SKILL.md names it: 1 to " +
                                                   std::to_string(agent::kMaxSkillNameBytes) +
                                                   " lowercase letters, digits and hyphens");
        skills.push_back(name);
    }
    if (error)
        return systemError("read " + source.string(), error.value());
    if (skills.empty())
        return makeError(ErrorCode::InvalidArgument,
                         source.string() + " holds no skill folder (FOLDER/SKILL.md)");
    if (skills.size() > kMaxSkillsPerTenant)
        return makeError(ErrorCode::InvalidArgument,
                         source.string() + " holds " + std::to_string(skills.size()) +
                             " skill folders, more than " + std::to_string(kMaxSkillsPerTenant));
    std::sort(skills.begin(), skills.end());
    return skills;
}

} // namespace

Result<fs::path> tenantSkillsDir(const fs::path& dataDir, const std::string& tenant) {
    if (auto checked = checkAccountName("tenant", tenant); !checked)
        return checked.error();
    return dataDir / kTenantSkills / tenant;
}

Result<fs::path> prepareTenantSkillsDir(const fs::path& dataDir, const std::string& tenant) {
    auto dir = tenantSkillsDir(dataDir, tenant);
    if (!dir)
        return dir.error();
    if (auto root = makeDir(dataDir / kTenantSkills, 0755); !root)
        return root.error();
    if (auto made = makeDir(*dir, 0755); !made)
        return made.error();
    return dir;
}

Result<std::vector<InstalledSkill>> installSkills(const fs::path& dataDir, const std::string& tenant,
                                                  const fs::path& source) {
    auto dir = prepareTenantSkillsDir(dataDir, tenant);
    if (!dir)
        return dir.error();
    auto skills = skillFolders(source);
    if (!skills)
        return skills.error();
    auto staging = Staging::make(dataDir / kTenantSkills, tenant);
    if (!staging)
        return staging.error();
    tar::UploadLimits limits;
    limits.maxEntries = kMaxSkillEntries;
    limits.maxTotalBytes = kMaxSkillBytes;
    std::vector<InstalledSkill> installed;
    for (const std::string& skill : *skills) {
        if (auto checked = checkSkillFiles(source / skill, skill); !checked)
            return checked.error();
        const fs::path copy = staging->path() / skill;
        auto copied = uploads::copyWorkspace(source / skill, copy, limits);
        if (!copied)
            return refused(skill, copyRefusal(copied.error().message));
        if (auto checked = checkSkillFile(copy, skill); !checked)
            return checked.error();
        if (auto opened = openUp(copy); !opened)
            return opened.error();
        installed.push_back({skill, false, copied->files, copied->bytes});
    }
    for (InstalledSkill& skill : installed) {
        auto replaced = putInPlace(staging->path() / skill.name, *dir / skill.name);
        if (!replaced)
            return replaced.error();
        skill.replaced = *replaced;
    }
    return installed;
}

Result<bool> removeSkill(const fs::path& dataDir, const std::string& tenant, const std::string& name) {
    auto dir = tenantSkillsDir(dataDir, tenant);
    if (!dir)
        return dir.error();
    if (!agent::isValidSkillName(name))
        return makeError(ErrorCode::InvalidArgument, "\"" + name +
                                                         "\" is not a skill's name (lowercase letters, "
                                                         "digits and hyphens)");
    struct stat status {};
    if (::lstat((*dir / name).c_str(), &status) != 0)
        return false;
    auto staging = Staging::make(dataDir / kTenantSkills, tenant);
    if (!staging)
        return staging.error();
    // Out of the tenant's folder in one step, then removed where no sandbox sees it.
    if (::rename((*dir / name).c_str(), (staging->path() / name).c_str()) != 0)
        return errno == ENOENT ? Result<bool>(false) : systemError("remove " + (*dir / name).string(), errno);
    return true;
}

Result<std::vector<std::string>> installedSkills(const fs::path& dataDir, const std::string& tenant) {
    auto dir = tenantSkillsDir(dataDir, tenant);
    if (!dir)
        return dir.error();
    std::vector<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(*dir, error), end; !error && it != end; it.increment(error))
        if (!it->path().filename().string().starts_with(".") && it->is_directory())
            names.push_back(it->path().filename().string());
    if (error && error != std::errc::no_such_file_or_directory)
        return systemError("read " + dir->string(), error.value());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace warren::accounts
