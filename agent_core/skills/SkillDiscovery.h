#pragma once
// Where a task's skills come from (DESIGN §13), and finding them there: each subfolder holding a SKILL.md
// of the workspace's .warren/skills, .claude/skills and .agents/skills, then of each folder the skills_dirs
// setting names (read-only mounts: the user's skills, a tenant's packs). A name an earlier root has is
// skipped, so the workspace's .warren/skills wins over all. The workspace is the attacker's: a root, a
// skill's folder or its SKILL.md reached through a symlink that leads out of its root (the workspace for
// the workspace's roots) is not read, nor is a SKILL.md that is not a regular file, is over
// kMaxSkillFileBytes or does not parse (SkillFile.h), nor anything past kMaxSkills; each is a message
// saying why, and the others load. The thin filesystem edge over SkillFile.

#include "agent_core/skills/Skill.h"

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

inline constexpr std::array<std::string_view, 3> kWorkspaceSkillDirs{".warren/skills", ".claude/skills",
                                                                     ".agents/skills"};
inline constexpr std::string_view kSkillFileName = "SKILL.md";
inline constexpr std::size_t kMaxSkills = 200;
// Entries of one root looked at: a root of a million folders is not a skills folder.
inline constexpr std::size_t kMaxSkillRootEntries = 1000;

struct SkillRoot {
    std::filesystem::path path;      // as configured: workspace/.claude/skills, or a skills_dirs entry
    std::filesystem::path workspace; // for the workspace's roots, which must stay in it; empty for the others
    std::string shown;               // ".claude/skills", "/skills/user"
};

// The roots in the order they win: the workspace's three, then extraDirs (absolute paths).
std::vector<SkillRoot> skillRoots(const std::filesystem::path& workspace,
                                  const std::vector<std::string>& extraDirs);

struct SkillScan {
    std::vector<Skill> skills;        // in the order of the roots, each root's by folder name
    std::vector<std::string> skipped; // one message per skill or root left out, naming it and saying why
};

// What scanSkills would read, without reading any file: each root's place, each SKILL.md's path, size and
// modification time, and what keeps one from being read. Two equal fingerprints: nothing to read again.
std::string skillsFingerprint(const std::vector<SkillRoot>& roots);

SkillScan scanSkills(const std::vector<SkillRoot>& roots);

} // namespace warren::agent
