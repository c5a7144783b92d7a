#include "agent_core/prompt/SkillsSection.h"

#include "agent_core/context/TokenEstimate.h"
#include "agent_core/prompt/PromptText.h"

#include <algorithm>

// Embedded from resources/prompts by prompt/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view promptSkillsMd;
} // namespace warren::resources

namespace warren::agent {

namespace {

constexpr std::uint64_t kPercentOfContext = 2;

std::string singleSpaced(std::string_view text) {
    std::string out;
    bool space = false;
    for (const char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        out += c;
        space = false;
    }
    return out;
}

std::string sectionMarker() {
    return "\n\n" + std::string(kSkillsHeading) + "\n";
}

} // namespace

std::size_t skillsListBudget(std::uint64_t contextWindowLimit) {
    const std::uint64_t bytes = contextWindowLimit * kBytesPerToken * kPercentOfContext / 100;
    return static_cast<std::size_t>(std::min<std::uint64_t>(bytes, kMaxSkillsListBytes));
}

std::string skillsSection(const std::vector<Skill>& skills, std::size_t budgetBytes) {
    if (skills.empty())
        return {};
    std::string list;
    std::size_t used = 0;
    std::size_t next = 0;
    for (; next < skills.size(); ++next) {
        const std::string line =
            "- " + skills[next].name + ": " + singleSpaced(skills[next].description) + "\n";
        if (used + line.size() > budgetBytes)
            break;
        list += line;
        used += line.size();
    }
    // The names' line counts in the budget too: its words, then each name.
    const std::string_view namesLine = "- Also these, their descriptions left out for room: ";
    std::string names;
    used += namesLine.size() + 2; // ".\n"
    for (; next < skills.size(); ++next) {
        const std::string part = (names.empty() ? "" : ", ") + skills[next].name;
        if (used + part.size() > budgetBytes)
            break;
        names += part;
        used += part.size();
    }
    if (!names.empty())
        list += std::string(namesLine) + names + ".\n";
    if (const std::size_t left = skills.size() - next; left > 0)
        list +=
            "- And " + std::to_string(left) + (left == 1 ? " more skill" : " more skills") +
            " not listed for room: the skill tool's answer to a name that is not there lists every name.\n";
    while (!list.empty() && list.back() == '\n')
        list.pop_back();
    std::string section(withoutHeader(resources::promptSkillsMd));
    const std::string_view placeholder = "{{skills}}";
    if (const auto at = section.find(placeholder); at != std::string::npos)
        section.replace(at, placeholder.size(), list);
    while (!section.empty() && section.back() == '\n')
        section.pop_back();
    return section;
}

std::string withSkillsSection(std::string_view systemPrompt, std::string_view section) {
    const auto at = systemPrompt.rfind(sectionMarker());
    std::string out(at == std::string_view::npos ? systemPrompt : systemPrompt.substr(0, at));
    if (!section.empty())
        out += "\n\n" + std::string(section);
    return out;
}

} // namespace warren::agent
