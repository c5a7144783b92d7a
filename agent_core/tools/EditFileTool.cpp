#include "agent_core/tools/EditFileTool.h"

#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/TextReplace.h"
#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WriteFileTool.h"

#include <algorithm>

namespace warren::agent {

using nlohmann::json;

namespace {

std::string plural(std::size_t count, const char* noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace

protocol::ToolSpec EditFileTool::spec() {
    return {std::string(kName),
            "Replace an exact piece of text in a workspace file; old_string must occur exactly once unless "
            "replace_all is true.",
            json{{"type", "object"},
                 {"properties",
                  {{"path",
                    {{"type", "string"}, {"description", "File path, relative to /workspace or under it"}}},
                   {"old_string",
                    {{"type", "string"},
                     {"description", "The exact text to replace, whitespace and indentation included"}}},
                   {"new_string", {{"type", "string"}, {"description", "The text to put in its place"}}},
                   {"replace_all",
                    {{"type", "boolean"}, {"description", "Replace every occurrence (default false)"}}}}},
                 {"required", {"path", "old_string", "new_string"}},
                 {"additionalProperties", false}}};
}

ToolOutcome EditFileTool::run(const json& arguments, const ToolEnv& env) {
    const std::string tool(kName);
    auto reader = ToolArguments::read(kName, arguments, {"path", "old_string", "new_string", "replace_all"});
    if (!reader)
        return failure(reader.error().message);
    auto path = reader->string("path");
    auto oldString = reader->string("old_string");
    auto newString = reader->string("new_string");
    auto replaceAll = reader->optionalBool("replace_all");
    for (const Error* error :
         {path ? nullptr : &path.error(), oldString ? nullptr : &oldString.error(),
          newString ? nullptr : &newString.error(), replaceAll ? nullptr : &replaceAll.error()})
        if (error)
            return failure(error->message);
    if (oldString->empty())
        return failure(tool + ": old_string is empty; to create or overwrite a whole file use write_file");
    if (*oldString == *newString)
        return failure(tool + ": old_string and new_string are the same; nothing would change");

    auto resolved = resolveInWorkspace(env.workspace, *path);
    if (!resolved)
        return failure(tool + ": " + resolved.error().message);
    const std::string shown = relativeToWorkspace(env.workspace, *resolved);
    auto file = readTextFile(*resolved, shown, kMaxFileBytes);
    if (!file)
        return failure(tool + ": " + file.error().message +
                       (file.error().code == ErrorCode::NotFound ? " (write_file creates a file)" : ""));
    if (auto replaceable = checkReplaceable(*resolved, shown, file->status); !replaceable)
        return failure(tool + ": " + replaceable.error().message);

    const std::string& text = file->content;
    const TextReplace replaced = replaceText(text, *oldString, *newString);
    const std::vector<std::size_t>& found = replaced.found;
    if (found.empty())
        return failure(
            tool + ": old_string was not found in " + shown +
            " (it must match exactly, whitespace and indentation included; read_file shows the text)");
    if (found.size() > 1 && !replaceAll->value_or(false))
        return failure(tool + ": old_string occurs " + std::to_string(found.size()) + " times in " + shown +
                       "; add surrounding lines to make it unique, or set replace_all to replace every one");

    const std::string& edited = replaced.edited;

    if (auto written = writeFileAtomically(*resolved, shown, edited, &file->status); !written)
        return failure(tool + ": " + written.error().message);
    if (env.onFileChanged) {
        const FileDiff diff = diffFileChange(text, edited, shown);
        env.onFileChanged(shown, FileChange::Modified, &diff);
    }
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(found.front()), '\n');
    ToolOutcome outcome;
    outcome.bytesWritten = edited.size();
    outcome.output = "edited " + shown + ": replaced " + plural(found.size(), "occurrence") +
                     (found.size() == 1 ? " at line " : ", the first at line ") + std::to_string(line);
    return outcome;
}

} // namespace warren::agent
