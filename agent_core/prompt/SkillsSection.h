#pragma once
// The system prompt's skills section (resources/prompts/skills.md; DESIGN §13's progressive disclosure): each
// skill's name and description, so the model knows when to load one with the skill tool, within a budget so
// that many skills do not crowd out the task: the skills in order with their descriptions while they fit,
// then the rest by name while those fit, then a count of the others. The section is the prompt's last, so
// it can be replaced when the skills change mid-task. Pure.

#include "agent_core/skills/Skill.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

inline constexpr std::size_t kMaxSkillsListBytes = 8 * 1024;
inline constexpr std::string_view kSkillsHeading = "# Skills"; // the section's first line

// The bytes the list may take: about 2% of context_window_limit (at kBytesPerToken), at most
// kMaxSkillsListBytes.
std::size_t skillsListBudget(std::uint64_t contextWindowLimit);

// The section, or "" when there are no skills. Within budgetBytes (the list's; the fixed text around it is
// not counted, nor the count's line): "- name: description" (its whitespace made single spaces) for each
// skill in order while they fit; from the first that does not, the rest by name only on one line while
// those fit; the others counted.
std::string skillsSection(const std::vector<Skill>& skills, std::size_t budgetBytes);

// systemPrompt with its skills section (from the last line kSkillsHeading to the end) replaced by section;
// an empty section removes it.
std::string withSkillsSection(std::string_view systemPrompt, std::string_view section);

} // namespace warren::agent
