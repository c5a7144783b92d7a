#pragma once
// A skill as a run knows it (DESIGN §13): the name and description its SKILL.md's front matter gives (the
// name wins over its folder's: the model loads a skill by the name it was shown), where it is, and the
// SKILL.md's size and modification time, by which a change is seen. The instructions are not kept: the skill
// tool reads them again when the model loads the skill, so what it reads is the file as it is then, and a
// run holds no more than the list.

#include <cstdint>
#include <filesystem>
#include <string>

namespace warren::agent {

struct Skill {
    std::string name;
    std::string description;
    std::filesystem::path folder; // canonical: the folder its files are read in, and never out of
    std::filesystem::path file;   // its SKILL.md, canonical
    std::string shown;            // its SKILL.md as messages name it: ".claude/skills/pdf/SKILL.md" in the
                                  // workspace, "/skills/pdf/SKILL.md" in a skills_dirs folder
    std::uint64_t size = 0;
    std::int64_t modifiedNs = 0;
    friend bool operator==(const Skill&, const Skill&) = default;
};

} // namespace warren::agent
