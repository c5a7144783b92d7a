#include "app/git/GitDiffText.h"

#include "app/git/PatchText.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace warren::git {

namespace {

constexpr std::string_view kHeader = "diff --git ";

// The header's two names, "a/P b/P" or "\"a/Q\" \"b/Q\"": with one path for both, they are the two
// halves of the line around its middle space, which is how an added file's "b/P b/P" is recognised too.
struct Names {
    std::size_t offset = 0; // of the first name in the section
    std::size_t half = 0;   // length of one name
    bool quoted = false;
};

bool parseNames(std::string_view section, Names& names) {
    const std::size_t end = std::min(section.find('\n'), section.size());
    const std::string_view both = section.substr(kHeader.size(), end - kHeader.size());
    if (both.size() % 2 == 0 || both.size() < 7)
        return false;
    names.offset = kHeader.size();
    names.half = both.size() / 2;
    names.quoted = both.front() == '"';
    const std::size_t prefix = names.quoted ? 1 : 0;
    const auto side = [&](std::size_t at) {
        return both[at] == 'a' || both[at] == 'b';
    };
    return both[names.half] == ' ' && side(prefix) && side(names.half + 1 + prefix) &&
           both.substr(prefix + 1, names.half - prefix - 1) ==
               both.substr(names.half + 2 + prefix, names.half - prefix - 1);
}

// P's components without its "a/" prefix (and quotes); a ".git" among the directories marks metadata.
bool underRepositoryMetadata(std::string_view section, const Names& names) {
    const std::size_t prefix = names.quoted ? 3 : 2; // "\"a/" or "a/"
    std::string_view path =
        section.substr(names.offset + prefix, names.half - prefix - (names.quoted ? 1 : 0));
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        if (slash == std::string_view::npos)
            return false; // the last component is the file itself
        if (isGitComponent(path.substr(0, slash)))
            return true;
        path.remove_prefix(slash + 1);
    }
    return false;
}

std::vector<std::string_view> sections(std::string_view raw) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (std::size_t at = 0; at < raw.size();) {
        const std::size_t end = std::min(raw.find('\n', at), raw.size());
        if (at > start && raw.substr(at).starts_with(kHeader)) {
            out.push_back(raw.substr(start, at - start));
            start = at;
        }
        at = end + 1;
    }
    if (start < raw.size())
        out.push_back(raw.substr(start));
    return out;
}

} // namespace

std::string tidyGitDiff(std::string_view raw) {
    std::string patch;
    patch.reserve(raw.size());
    for (const std::string_view section : sections(raw)) {
        Names names;
        if (!section.starts_with(kHeader) || !parseNames(section, names)) {
            patch += section; // not a header git writes for --no-index --no-renames: left as it is
            continue;
        }
        if (underRepositoryMetadata(section, names))
            continue;
        const std::size_t at = patch.size(), quote = names.quoted ? 1 : 0;
        patch += section;
        patch[at + names.offset + quote] = 'a';
        patch[at + names.offset + names.half + 1 + quote] = 'b';
    }
    return patch;
}

} // namespace warren::git
