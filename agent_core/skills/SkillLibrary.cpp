#include "agent_core/skills/SkillLibrary.h"

#include <algorithm>
#include <utility>

namespace warren::agent {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

const Skill* named(const std::vector<Skill>& skills, std::string_view name) {
    const auto found =
        std::find_if(skills.begin(), skills.end(), [&](const Skill& skill) { return skill.name == name; });
    return found == skills.end() ? nullptr : &*found;
}

} // namespace

SkillLibrary::SkillLibrary(std::vector<SkillRoot> roots) : m_roots(std::move(roots)) {}

bool SkillLibrary::refresh() {
    auto print = skillsFingerprint(m_roots);
    const bool first = !m_fingerprint;
    if (!first && print == *m_fingerprint)
        return false;
    m_fingerprint = std::move(print);
    auto scan = scanSkills(m_roots);
    for (const auto& message : scan.skipped)
        if (std::find(m_skipped.begin(), m_skipped.end(), message) == m_skipped.end())
            m_notices.push_back({SkillNotice::Kind::Skipped, message});
    m_skipped = std::move(scan.skipped);
    const std::string changes = describeSkillChanges(m_skills, scan.skills);
    std::vector<Skill> before = std::exchange(m_skills, std::move(scan.skills));
    if (first) {
        if (!m_skills.empty())
            m_notices.push_back({SkillNotice::Kind::Info, "skills offered: " + joined(names())});
        return !m_skills.empty();
    }
    if (changes.empty())
        return false;
    m_notices.push_back({SkillNotice::Kind::Info, "skills changed: " + changes});
    return true;
}

const Skill* SkillLibrary::find(std::string_view name) const {
    return named(m_skills, name);
}

std::vector<std::string> SkillLibrary::names() const {
    std::vector<std::string> names;
    for (const auto& skill : m_skills)
        names.push_back(skill.name);
    return names;
}

std::vector<SkillNotice> SkillLibrary::takeNotices() {
    return std::exchange(m_notices, {});
}

std::string describeSkillChanges(const std::vector<Skill>& before, const std::vector<Skill>& after) {
    std::vector<std::string> added, changed, removed;
    for (const auto& skill : after) {
        const Skill* old = named(before, skill.name);
        if (!old)
            added.push_back(skill.name);
        else if (!(*old == skill))
            changed.push_back(skill.name);
    }
    for (const auto& skill : before)
        if (!named(after, skill.name))
            removed.push_back(skill.name);
    std::string out;
    auto part = [&](const char* what, const std::vector<std::string>& names) {
        if (!names.empty())
            out += (out.empty() ? "" : "; ") + std::string(what) + " " + joined(names);
    };
    part("added", added);
    part("changed", changed);
    part("removed", removed);
    return out;
}

} // namespace warren::agent
