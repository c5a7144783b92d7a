#include "agent_core/skills/SkillTool.h"

#include "agent_core/skills/SkillFile.h"
#include "agent_core/skills/SkillFolder.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/ToolText.h"
#include "common/Utf8.h"

namespace warren::agent {

using nlohmann::json;

namespace {

const std::string kTool(SkillTool::kName);

std::string cutNote(std::uint64_t shown, std::uint64_t size, const std::filesystem::path& whole) {
    return "\n[... cut after " + std::to_string(shown) + " of " + std::to_string(size) +
           " bytes; the whole file is " + whole.string() +
           ": read the part you need with shell, e.g. sed -n '200,400p' on it]";
}

std::string listing(const Skill& skill) {
    const auto folder = listSkillFolder(skill.folder);
    if (folder.files.empty())
        return {};
    std::string out = "\n\nFiles in the skill's folder (read one with skill {\"name\": \"" + skill.name +
                      "\", \"file\": PATH}, or run a script from the folder):";
    for (const auto& file : folder.files)
        out += "\n- " + shortenLine(validUtf8(file), 256);
    if (folder.more)
        out += "\n- [... more files, not listed; list_files or shell ls shows them]";
    return out;
}

} // namespace

protocol::ToolSpec SkillTool::spec() {
    return {kTool,
            "Load a skill listed in the system prompt: without file, its instructions and the files in its "
            "folder; "
            "with file, one of those files. Load a skill when the task matches its description, before you "
            "start.",
            json{{"type", "object"},
                 {"properties",
                  {{"name",
                    {{"type", "string"}, {"description", "The skill's name, as the system prompt lists it"}}},
                   {"file",
                    {{"type", "string"},
                     {"description", "A file in the skill's folder, relative to it (e.g. reference.md)"}}}}},
                 {"required", {"name"}},
                 {"additionalProperties", false}}};
}

ToolOutcome SkillTool::run(const json& arguments, const ToolEnv& env) {
    auto reader = ToolArguments::read(kName, arguments, {"name", "file"});
    if (!reader)
        return failure(reader.error().message);
    auto name = reader->string("name");
    if (!name)
        return failure(name.error().message);
    auto path = reader->optionalString("file");
    if (!path)
        return failure(path.error().message);
    if (!m_library || m_library->skills().empty())
        return failure(kTool + ": there are no skills in this task");
    const Skill* skill = m_library->find(*name);
    if (!skill) {
        std::string names;
        for (const auto& known : m_library->names())
            names += (names.empty() ? "" : ", ") + known;
        return failure(kTool + ": there is no skill \"" + shortenLine(validUtf8(*name), 80) +
                       "\"; the skills are: " + names);
    }
    if (*path)
        return readSkillFile(*skill, **path, env);
    return loadSkill(*skill, env);
}

ToolOutcome SkillTool::loadSkill(const Skill& skill, const ToolEnv& env) const {
    // Read again: the model gets the instructions as they are now, and the run keeps no copy of them.
    auto text = readFilePrefix(skill.file, skill.shown, kMaxSkillFileBytes + 1);
    if (!text)
        return failure(kTool + ": " + text.error().message);
    auto document = parseSkillFile(text->text);
    if (!document)
        return failure(kTool + ": " + skill.shown +
                       " changed since it was listed and cannot be read now: " + document.error().message);
    const std::string header =
        "Skill \"" + skill.name + "\" (" + skill.shown + "). Its folder is " + skill.folder.string() +
        ": paths in its instructions are relative to it, and its scripts run from there.\n\n";
    const std::string files = listing(skill);
    const std::size_t fixed = header.size() + files.size();
    const std::size_t room = env.outputLimitBytes > fixed ? env.outputLimitBytes - fixed : 0;
    std::string body = validUtf8(document->body);
    while (!body.empty() && (body.back() == '\n' || body.back() == ' '))
        body.pop_back();
    ToolOutcome outcome;
    outcome.output = header;
    if (body.size() <= room) {
        outcome.output += body;
    } else {
        const auto kept = utf8Prefix(body, room);
        outcome.output += std::string(kept) + cutNote(kept.size(), body.size(), skill.file);
        outcome.truncated = true;
    }
    outcome.output += files;
    return outcome;
}

ToolOutcome SkillTool::readSkillFile(const Skill& skill, const std::string& path, const ToolEnv& env) const {
    auto relative = relativeSkillPath(path);
    if (!relative)
        return failure(kTool + ": " + relative.error().message);
    auto resolved = resolveInSkillFolder(skill.folder, *relative);
    if (!resolved)
        return failure(kTool + ": skill \"" + skill.name + "\": " + resolved.error().message);
    auto text = readFilePrefix(*resolved, *relative, env.outputLimitBytes);
    if (!text)
        return failure(kTool + ": " + text.error().message);
    if (looksBinary(text->text))
        return failure(kTool + ": " + *relative +
                       " is a binary file (it has NUL bytes); it cannot be shown as text");
    ToolOutcome outcome;
    const auto kept = utf8Prefix(text->text, env.outputLimitBytes);
    outcome.output = validUtf8(kept);
    if (text->size > kept.size()) {
        outcome.output += cutNote(kept.size(), text->size, *resolved);
        outcome.truncated = true;
    }
    if (outcome.output.empty())
        outcome.output = "(" + *relative + " is empty)";
    return outcome;
}

} // namespace warren::agent
