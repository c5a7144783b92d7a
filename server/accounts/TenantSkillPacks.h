#pragma once
// The skill packs an operator gives every user of a tenant (DESIGN §13, `warrend admin install-skills`): each
// skill a folder with a SKILL.md, kept in warrend's data directory at tenant-skills/<tenant>/<skill>/, which
// warrend mounts read-only into every sandbox of the tenant's tasks (Warren's agent, local backends). The
// agent looks for skills again before each step, and the mount shows what changes in the folder, so a pack
// installed while a task runs is offered at its next step.
//
// What is copied is the operator's folder, but may come from anywhere: each skill is copied as an upload's
// tree is (uploads::copyWorkspace: no device, FIFO or socket, no symbolic link that leads out of the skill,
// bounded entries and bytes), after a walk that refuses hard links (a file that is also another one, perhaps
// outside the folder) and files over kMaxSkillPackFileBytes; its SKILL.md must read as the agent reads it,
// and name the folder. The copy is made beside the tenant's folder (tenant-skills/.incoming) and put in place
// with one rename, exchanging it with an installed skill of that name, so a task sees the old skill or the
// new, never half of one (renameat2's RENAME_EXCHANGE: ext4, XFS, btrfs, tmpfs have it; a data directory
// on a file system without it fails the install, saying so). Files are world-readable (0644, 0755 where
// executable) and directories 0755, for the sandbox's user.

#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warren::accounts {

inline constexpr std::uint64_t kMaxSkillPackFileBytes = 4 * 1024 * 1024;
inline constexpr std::uint64_t kMaxSkillBytes = 16 * 1024 * 1024; // a skill's files together
inline constexpr std::uint64_t kMaxSkillEntries = 1000;           // a skill's files, folders and links
inline constexpr std::size_t kMaxSkillsPerTenant = 200;           // agent::kMaxSkills

// dataDir/tenant-skills/<tenant>; an error when tenant is not a tenant's name (checkAccountName: no '/',
// no "..", not hidden).
Result<std::filesystem::path> tenantSkillsDir(const std::filesystem::path& dataDir,
                                              const std::string& tenant);

// The tenant's folder, made (0755) where it is not yet: what a launch mounts, so that a pack installed later
// is seen by the tasks running then.
Result<std::filesystem::path> prepareTenantSkillsDir(const std::filesystem::path& dataDir,
                                                     const std::string& tenant);

struct InstalledSkill {
    std::string name;
    bool replaced = false; // a skill of that name was installed before
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
};

// Every folder of source that holds a SKILL.md (hidden entries and plain files at its top are passed over) is
// checked and copied first; then each is put in place. An error before anything is in place when one skill
// is refused (naming it and why) or source holds none.
Result<std::vector<InstalledSkill>> installSkills(const std::filesystem::path& dataDir,
                                                  const std::string& tenant,
                                                  const std::filesystem::path& source);

// Removes the tenant's skill of that name; false when there is none.
Result<bool> removeSkill(const std::filesystem::path& dataDir, const std::string& tenant,
                         const std::string& name);

// The tenant's installed skills' names, sorted; none when its folder does not exist.
Result<std::vector<std::string>> installedSkills(const std::filesystem::path& dataDir,
                                                 const std::string& tenant);

} // namespace warren::accounts
