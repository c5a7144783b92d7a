#pragma once
// A SKILL.md read (the Agent Skills format, DESIGN §13): its front matter's name and description, checked as
// Claude Code and Codex check them, and its body, the instructions the model reads when it loads the skill.
// Other keys (license, allowed-tools, metadata, ...) are not used and need not be readable. Pure.

#include "agent_core/protocol/SetupNotices.h"
#include "common/Result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::agent {

using protocol::kMaxSkillNameBytes; // the name's rule is protocol/SetupNotices': the notices list names too
inline constexpr std::size_t kMaxSkillDescriptionCharacters = 1024;
// A SKILL.md is read whole; past this it is not a skill's instructions but a way to fill the context.
inline constexpr std::size_t kMaxSkillFileBytes = 256 * 1024;

struct SkillDocument {
    std::string name;        // 1 to kMaxSkillNameBytes of a-z, 0-9 and '-'
    std::string description; // what the skill does and when to use it; 1 to 1024 characters, no control
                             // characters but line breaks and tabs
    std::string body;        // after the front matter; not UTF-8 checked (validUtf8 before it is shown)
};

// Errors say what is wrong in a line a person can act on: no front matter, a line that cannot be read (with
// its number), no name or description, a name with other characters or too long, a description too long,
// NUL bytes, front matter that is not UTF-8, a file over kMaxSkillFileBytes.
Result<SkillDocument> parseSkillFile(std::string_view text);

// 1 to kMaxSkillNameBytes lowercase letters, digits and hyphens.
using protocol::isValidSkillName;

} // namespace warren::agent
