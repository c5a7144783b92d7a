#include "app/timeline/ApprovalPreview.h"

#include "agent_core/tools/PatchFormat.h"
#include "agent_core/tools/TextReplace.h"
#include "agent_core/tools/UnifiedDiff.h"
#include "app/egress/NetworkQuestion.h"
#include "app/timeline/CallDescription.h"

#include <optional>

namespace warren::timeline {

using nlohmann::json;
using Body = TimelineCard::Body;

namespace {

// The largest file an edit's preview builds: the agent chooses what it would write (a replace_all of one
// character by a long text), and the window must not spend its memory on it.
constexpr std::size_t kPreviewEditedBytes = 4 << 20;

std::string counted(const agent::LineDiff& diff) {
    return "+" + std::to_string(diff.added) + " \xE2\x88\x92" + std::to_string(diff.removed); // −
}

// The diff as the card shows it: at most kPreviewDiffLines lines (and kMaxDiffBytes), saying so when cut.
ApprovalPreview diffPreview(std::string where, const agent::LineDiff& diff) {
    ApprovalPreview preview;
    const agent::CappedDiff capped = agent::capDiff(diff.text, agent::kMaxDiffBytes, kPreviewDiffLines);
    preview.where = std::move(where) + (capped.truncated ? " (only the start of the diff)" : "");
    preview.bodyKind = Body::Diff;
    preview.body = capped.text;
    return preview;
}

CurrentFile readWith(const FileReader& readFile, const std::string& path) {
    return readFile ? readFile(path) : CurrentFile{};
}

ApprovalPreview shellPreview(const json& arguments) {
    ApprovalPreview preview;
    const std::string workdir = stringArgument(arguments, "workdir");
    preview.where = workdir.empty() || workdir == "." || workdir == "/workspace"
                        ? "runs in the workspace"
                        : "runs in " + workdir + (workdir.front() == '/' ? "" : " of the workspace");
    preview.bodyKind = Body::Plain;
    preview.body = stringArgument(arguments, "command");
    return preview;
}

ApprovalPreview editPreview(const json& arguments, const FileReader& readFile) {
    const std::string path = stringArgument(arguments, "path");
    if (!arguments.contains("old_string")) // Claude Code's MultiEdit: a list of edits, not one
        return ApprovalPreview{"changes " + path + " (its edits are not shown here)", Body::None, {}};
    const std::string old = stringArgument(arguments, "old_string");
    const std::string replacement = stringArgument(arguments, "new_string");
    const auto all = arguments.find("replace_all");
    const bool replaceAll = all != arguments.end() && all->is_boolean() && all->get<bool>();
    // What the call itself says: the text it replaces and its replacement (line numbers are the fragment's).
    // The pieces of text as whole lines: a piece without its newline is not a file's last line.
    const auto asLines = [](std::string text) {
        return text.empty() || text.back() == '\n' ? text : text + '\n';
    };
    const auto fragment = [&](const std::string& why) {
        const agent::LineDiff diff = agent::diffLines(asLines(old), asLines(replacement), path, 0);
        return diffPreview("changes " + path + (why.empty() ? "" : " (" + why + ")") +
                               ": the text it replaces and its replacement",
                           diff);
    };
    const CurrentFile file = readWith(readFile, path);
    switch (file.state) {
    case CurrentFile::State::Unknown:
        return fragment({});
    case CurrentFile::State::Absent:
        return fragment("no such file now: the call will fail");
    case CurrentFile::State::Unreadable:
        return fragment(file.why);
    case CurrentFile::State::Text:
        break;
    }
    if (agent::isBinaryContent(file.text))
        return fragment("a binary file");
    const agent::TextReplace replaced = agent::replaceText(file.text, old, replacement, kPreviewEditedBytes);
    if (replaced.tooLarge)
        return fragment("the file would grow past " + withThousands(kPreviewEditedBytes) + " bytes");
    if (replaced.found.empty())
        return fragment("the text to replace is not in the file now: the call will fail");
    if (replaced.found.size() > 1 && !replaceAll)
        return fragment("the text to replace occurs " + std::to_string(replaced.found.size()) +
                        " times: the call will fail");
    const agent::LineDiff diff = agent::diffLines(file.text, replaced.edited, path);
    return diffPreview("changes " + path + ": " + counted(diff), diff);
}

ApprovalPreview writePreview(const json& arguments, const FileReader& readFile) {
    const std::string path = stringArgument(arguments, "path");
    const std::string content = stringArgument(arguments, "content");
    const CurrentFile file = readWith(readFile, path);
    if (agent::isBinaryContent(content) ||
        (file.state == CurrentFile::State::Text && agent::isBinaryContent(file.text))) {
        ApprovalPreview preview;
        preview.where = "writes " + path + ": binary content, " + withThousands(content.size()) + " bytes";
        return preview;
    }
    switch (file.state) {
    case CurrentFile::State::Text: {
        const agent::LineDiff diff = agent::diffLines(file.text, content, path);
        return diffPreview("rewrites " + path + ": " + counted(diff), diff);
    }
    case CurrentFile::State::Absent: {
        const agent::LineDiff diff = agent::diffLines(std::nullopt, content, path);
        return diffPreview("creates " + path + ": " + counted(diff), diff);
    }
    case CurrentFile::State::Unknown:
    case CurrentFile::State::Unreadable:
        break;
    }
    const agent::LineDiff diff = agent::diffLines(std::nullopt, content, path);
    return diffPreview(
        "writes " + path + " whole" +
            (file.state == CurrentFile::State::Unknown ? std::string() : " (" + file.why + ")") + ": " +
            counted(diff),
        diff);
}

// The patch is already a diff in apply_patch's format: shown as it is, coloured as one.
ApprovalPreview patchPreview(const json& arguments) {
    const std::string input = stringArgument(arguments, "input");
    const auto patch = agent::parsePatch(input);
    ApprovalPreview preview;
    preview.where = patch ? "applies a patch to " + std::to_string(patch->ops.size()) +
                                (patch->ops.size() == 1 ? " file" : " files")
                          : "applies a patch that does not read as one: the call will fail";
    const agent::CappedDiff capped = agent::capDiff(input, agent::kMaxDiffBytes, kPreviewDiffLines);
    if (capped.truncated)
        preview.where += " (only its start)";
    preview.bodyKind = Body::Diff;
    preview.body = capped.text;
    return preview;
}

} // namespace

ApprovalPreview approvalPreview(const std::string& tool, const json& arguments, const FileReader& readFile) {
    if (const auto warren = asWarrenCall(tool, arguments))
        return approvalPreview(warren->first, warren->second, readFile);
    // A network question's own reason (the control plane's) names the host, the port and the request.
    if (control::NetworkQuestion::fromApproval(tool, arguments))
        return {};
    if (!arguments.is_object())
        return {};
    if (tool == "shell")
        return shellPreview(arguments);
    if (tool == "edit_file")
        return editPreview(arguments, readFile);
    if (tool == "write_file")
        return writePreview(arguments, readFile);
    if (tool == "apply_patch")
        return patchPreview(arguments);
    return {};
}

} // namespace warren::timeline
