#include "agent_core/skills/SkillDiscovery.h"

#include "agent_core/skills/SkillFile.h"
#include "agent_core/skills/SkillFolder.h"
#include "agent_core/tools/WorkspacePath.h"

#include <algorithm>
#include <optional>
#include <sys/stat.h>

namespace warren::agent {

namespace fs = std::filesystem;

namespace {

// A SKILL.md found in a root, before it is read.
struct Candidate {
    std::string shown;
    fs::path folder; // canonical
    fs::path file;   // canonical
    std::uint64_t size = 0;
    std::int64_t modifiedNs = 0;
    std::string refused; // why it is not read; empty when it can be
};

struct RootContents {
    std::string place;   // the root's canonical path, or "" when there is none
    std::string refused; // why the root is not read, when it exists and is not
    bool more = false;   // past kMaxSkillRootEntries
    std::vector<Candidate> candidates;
};

// The root's canonical path: nullopt when it does not exist (quietly for the workspace's, which most
// workspaces lack) or is refused (refused says why).
std::optional<fs::path> placeOf(const SkillRoot& root, std::string& refused) {
    std::error_code error;
    fs::path path = root.path;
    if (!root.workspace.empty()) {
        auto resolved = resolveInWorkspace(root.workspace, root.shown);
        if (!resolved) {
            refused = "skills in " + root.shown + " are not read: " + resolved.error().message;
            return std::nullopt;
        }
        if (!fs::exists(*resolved, error))
            return std::nullopt;
        path = *resolved;
    }
    const fs::path place = fs::canonical(path, error);
    if (error) {
        refused = "skills in " + root.shown + " are not read: " +
                  (error == std::errc::no_such_file_or_directory ? std::string("it does not exist")
                                                                 : error.message());
        return std::nullopt;
    }
    if (!fs::is_directory(place, error)) {
        refused = "skills in " + root.shown + " are not read: it is not a directory";
        return std::nullopt;
    }
    return place;
}

std::vector<std::string> sortedEntries(const fs::path& directory, bool& more) {
    std::vector<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(directory, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        if (names.size() == kMaxSkillRootEntries) {
            more = true;
            break;
        }
        names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The skill in root/name, if that is a folder with a SKILL.md.
std::optional<Candidate> candidateIn(const SkillRoot& root, const fs::path& place, const std::string& name) {
    std::error_code error;
    Candidate candidate;
    candidate.shown = root.shown + "/" + name + "/" + std::string(kSkillFileName);
    const fs::path entry = place / name;
    const auto status = fs::symlink_status(entry, error);
    if (error)
        return std::nullopt;
    const fs::path folder = fs::canonical(entry, error);
    if (error)
        return std::nullopt; // a dangling symlink
    if (fs::is_symlink(status) && !isWithin(folder, place)) {
        candidate.refused =
            root.shown + "/" + name + " is a symlink that leads out of " + root.shown + ": not followed";
        return candidate;
    }
    if (!fs::is_directory(folder, error))
        return std::nullopt;
    const fs::path link = folder / kSkillFileName;
    if (!fs::exists(fs::symlink_status(link, error)))
        return std::nullopt; // a folder, not a skill
    candidate.folder = folder;
    candidate.file = fs::canonical(link, error);
    if (error) {
        candidate.refused = "it cannot be resolved: " + error.message();
        return candidate;
    }
    if (!isWithin(candidate.file, place)) {
        candidate.refused = "it is a symlink that leads out of " + root.shown + ": not followed";
        return candidate;
    }
    struct stat info {};
    if (::stat(candidate.file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        candidate.refused = "it is not a regular file";
        return candidate;
    }
    candidate.size = static_cast<std::uint64_t>(std::max<off_t>(info.st_size, 0));
    candidate.modifiedNs = std::int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    if (candidate.size > kMaxSkillFileBytes)
        candidate.refused = "larger than " + std::to_string(kMaxSkillFileBytes / 1024) + " KiB (" +
                            std::to_string(candidate.size) + " bytes)";
    return candidate;
}

RootContents contentsOf(const SkillRoot& root) {
    RootContents contents;
    const auto place = placeOf(root, contents.refused);
    if (!place)
        return contents;
    contents.place = place->string();
    for (const auto& name : sortedEntries(*place, contents.more)) {
        if (name.starts_with("."))
            continue;
        if (auto candidate = candidateIn(root, *place, name))
            contents.candidates.push_back(std::move(*candidate));
    }
    return contents;
}

std::string tooManyEntries(const SkillRoot& root) {
    return "skills in " + root.shown + ": more than " + std::to_string(kMaxSkillRootEntries) +
           " entries; the rest are not looked at";
}

} // namespace

std::vector<SkillRoot> skillRoots(const fs::path& workspace, const std::vector<std::string>& extraDirs) {
    std::vector<SkillRoot> roots;
    for (const auto dir : kWorkspaceSkillDirs)
        roots.push_back({workspace / dir, workspace, std::string(dir)});
    for (const auto& dir : extraDirs)
        roots.push_back({fs::path(dir), {}, dir});
    return roots;
}

std::string skillsFingerprint(const std::vector<SkillRoot>& roots) {
    std::string print;
    for (const auto& root : roots) {
        const auto contents = contentsOf(root);
        print += root.shown + "\t" + contents.place + "\t" + contents.refused +
                 (contents.more ? "\tmore" : "") + "\n";
        for (const auto& candidate : contents.candidates)
            print += candidate.shown + "\t" + candidate.file.string() + "\t" +
                     std::to_string(candidate.size) + "\t" + std::to_string(candidate.modifiedNs) + "\t" +
                     candidate.refused + "\n";
    }
    return print;
}

SkillScan scanSkills(const std::vector<SkillRoot>& roots) {
    SkillScan scan;
    std::vector<std::string> pastTheCap;
    for (const auto& root : roots) {
        const auto contents = contentsOf(root);
        if (!contents.refused.empty())
            scan.skipped.push_back(contents.refused);
        if (contents.more)
            scan.skipped.push_back(tooManyEntries(root));
        for (const auto& candidate : contents.candidates) {
            const std::string skipped = "skill " + candidate.shown + " skipped: ";
            if (!candidate.refused.empty()) {
                scan.skipped.push_back(skipped + candidate.refused);
                continue;
            }
            if (scan.skills.size() == kMaxSkills) {
                pastTheCap.push_back(candidate.shown);
                continue;
            }
            auto text = readFilePrefix(candidate.file, candidate.shown, kMaxSkillFileBytes + 1);
            if (!text) {
                scan.skipped.push_back(skipped + text.error().message);
                continue;
            }
            auto document = parseSkillFile(text->text);
            if (!document) {
                scan.skipped.push_back(skipped + document.error().message);
                continue;
            }
            const auto taken = std::find_if(scan.skills.begin(), scan.skills.end(),
                                            [&](const Skill& skill) { return skill.name == document->name; });
            if (taken != scan.skills.end()) {
                scan.skipped.push_back(skipped + "the name \"" + document->name + "\" is already " +
                                       taken->shown + "'s");
                continue;
            }
            scan.skills.push_back({document->name, document->description, candidate.folder, candidate.file,
                                   candidate.shown, candidate.size, candidate.modifiedNs});
        }
    }
    if (!pastTheCap.empty()) {
        std::string names;
        for (const auto& shown : pastTheCap)
            names += (names.empty() ? "" : ", ") + shown;
        scan.skipped.push_back(std::to_string(pastTheCap.size()) + " skills past the first " +
                               std::to_string(kMaxSkills) + " are not read: " + names);
    }
    return scan;
}

} // namespace warren::agent
