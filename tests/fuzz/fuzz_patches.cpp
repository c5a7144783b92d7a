// Patches, as bytes, through the parser the first byte picks:
//  0. PatchText (what `warren apply --remote` reads the server's patch with, before git applies it):
//     splitPatch and patchFiles agree, and every path they admit is a plain relative path outside any .git.
//  1. GitDiffText::tidyGitDiff (warrend's rewrite of git's diff of a workspace the agent wrote): tidying
//     twice changes nothing, and a tidied patch PatchText reads names no file in a .git directory.
//  2. The agent's apply_patch (PatchFormat, then PatchHunks on a file's text: the bytes before the first NUL
//     are the file, the rest the patch, both the model's): what parses is well formed, and what applies
//     reports one match per hunk.
//  3. unquoteGitName: a name that unquotes holds what git's C quoting can spell.

#include "FuzzInput.h"

#include "agent_core/tools/PatchFormat.h"
#include "agent_core/tools/PatchHunks.h"
#include "app/git/PatchText.h"
#include "app/git/GitDiffText.h"

#include <algorithm>

using namespace warren;
using warren::fuzz::require;

namespace {

bool isGit(std::string_view part) {
    if (part.size() != 4)
        return false;
    for (std::size_t i = 0; i < 4; ++i)
        if ((part[i] | 0x20) != ".git"[i])
            return false;
    return true;
}

// Relative, no empty, ".", ".." or .git component, no NUL.
void requirePlainPath(const std::string& path) {
    require(!path.empty() && path.front() != '/' && path.find('\0') == std::string::npos);
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part(path.data() + start, slash - start);
        require(!part.empty() && part != "." && part != ".." && !isGit(part));
        start = slash + 1;
    }
}

void remotePatch(std::string_view patch) {
    auto sections = git::splitPatch(patch);
    auto files = git::patchFiles(patch);
    require(sections.ok() == files.ok());
    if (!sections)
        return;
    for (const auto& section : *sections) {
        require(section.text.starts_with("diff --git "));
        requirePlainPath(section.file.path);
    }
    require(files->size() <= sections->size());
    for (std::size_t i = 0; i < files->size(); ++i)
        for (std::size_t j = i + 1; j < files->size(); ++j)
            require((*files)[i].path != (*files)[j].path);
}

void tidiedDiff(std::string_view raw) {
    const std::string tidy = git::tidyGitDiff(raw);
    require(tidy.size() <= raw.size());
    require(git::tidyGitDiff(tidy) == tidy);
    if (auto sections = git::splitPatch(tidy))
        for (const auto& section : *sections)
            requirePlainPath(section.file.path);
}

void agentPatch(std::string_view input) {
    const std::size_t nul = input.find('\0');
    const std::string_view original = nul == std::string_view::npos ? std::string_view() : input.substr(0, nul);
    const std::string_view text = nul == std::string_view::npos ? input : input.substr(nul + 1);
    auto patch = agent::parsePatch(text);
    if (!patch)
        return;
    require(!patch->ops.empty());
    for (const auto& op : patch->ops) {
        require(!op.path.empty());
        if (op.kind != agent::PatchOpKind::Update) {
            require(op.hunks.empty());
            continue;
        }
        require(!op.hunks.empty());
        for (const auto& hunk : op.hunks) {
            const auto count = [&](char kind) {
                return static_cast<std::size_t>(std::count(hunk.kinds.begin(), hunk.kinds.end(), kind));
            };
            require(count(' ') + count('-') + count('+') == hunk.kinds.size());
            require(hunk.oldLines.size() == count(' ') + count('-'));
            require(hunk.newLines.size() == count(' ') + count('+'));
            require(count('-') + count('+') > 0);
        }
        if (auto applied = agent::applyHunks(original, op.hunks, op.path))
            require(applied->matches.size() == op.hunks.size());
    }
}

void gitName(std::string_view quoted) {
    auto name = git::unquoteGitName(quoted);
    if (!name)
        return;
    require(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"');
    require(name->size() <= quoted.size() - 2);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    switch (input.pick(4)) {
    case 0:
        remotePatch(input.body);
        break;
    case 1:
        tidiedDiff(input.body);
        break;
    case 2:
        agentPatch(input.body);
        break;
    default:
        gitName(input.body);
        break;
    }
    return 0;
}
