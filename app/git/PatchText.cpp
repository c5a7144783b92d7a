#include "app/git/PatchText.h"

#include <algorithm>
#include <cctype>

namespace warren::git {

namespace {

constexpr std::string_view kHeader = "diff --git ";

std::string_view firstLine(std::string_view text) {
    return text.substr(0, std::min(text.find('\n'), text.size()));
}

// One C-quoted name at the start of text; consumed is set to its length with the quotes.
std::optional<std::string> unquoteAt(std::string_view text, std::size_t& consumed) {
    if (text.empty() || text.front() != '"')
        return std::nullopt;
    std::string out;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            consumed = i + 1;
            return out;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= text.size())
            return std::nullopt;
        const char e = text[i];
        if (e >= '0' && e <= '3' && i + 2 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7' &&
            text[i + 2] >= '0' && text[i + 2] <= '7') {
            out += static_cast<char>(((e - '0') << 6) | ((text[i + 1] - '0') << 3) | (text[i + 2] - '0'));
            i += 2;
            continue;
        }
        switch (e) {
        case 'a':
            out += '\a';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'v':
            out += '\v';
            break;
        case '\\':
            out += '\\';
            break;
        case '"':
            out += '"';
            break;
        default:
            return std::nullopt;
        }
    }
    return std::nullopt;
}

// "a/P b/P" (one path, so the line's middle space splits it) or "\"a/Q\" \"b/Q\"": P or Q.
Result<std::string> headerPath(std::string_view line) {
    const std::string_view both = line.substr(kHeader.size());
    const auto refused = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "the patch's header \"" + std::string(line) + "\" " + why);
    };
    std::string oldName, newName;
    if (both.starts_with('"')) {
        std::size_t first = 0, second = 0;
        auto a = unquoteAt(both, first);
        if (!a || first >= both.size() || both[first] != ' ')
            return refused("has a malformed quoted name");
        auto b = unquoteAt(both.substr(first + 1), second);
        if (!b || first + 1 + second != both.size())
            return refused("has a malformed quoted name");
        oldName = std::move(*a);
        newName = std::move(*b);
    } else {
        if (both.size() % 2 == 0 || both[both.size() / 2] != ' ')
            return refused("does not name one file twice (a rename or a damaged patch)");
        oldName = std::string(both.substr(0, both.size() / 2));
        newName = std::string(both.substr(both.size() / 2 + 1));
    }
    if (!oldName.starts_with("a/") || !newName.starts_with("b/") || oldName.substr(2) != newName.substr(2))
        return refused("does not name one file as a/FILE and b/FILE");
    return oldName.substr(2);
}

Status checkPath(const std::string& path) {
    const auto refused = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "the patch is refused: \"" + path + "\" " + why + "; nothing was applied");
    };
    if (path.empty() || path.front() == '/')
        return refused("is not a path inside the workspace");
    if (path.find('\0') != std::string::npos)
        return refused("holds a NUL byte");
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = std::min(path.find('/', start), path.size());
        const std::string_view part = std::string_view(path).substr(start, slash - start);
        if (part.empty() || part == "." || part == "..")
            return refused("is not a plain path inside the workspace");
        if (isGitComponent(part))
            return refused("lies in a .git directory, which a task's patch never changes");
        start = slash + 1;
    }
    return Ok{};
}

std::uint32_t octal(std::string_view text) {
    std::uint32_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '7')
            return 0;
        value = value * 8 + static_cast<std::uint32_t>(c - '0');
    }
    return value;
}

// The extended header lines between "diff --git" and the first hunk or binary data say what happens.
void readExtendedHeader(std::string_view section, PatchFile& file) {
    std::size_t at = section.find('\n');
    while (at != std::string_view::npos && at + 1 < section.size()) {
        const std::string_view line = firstLine(section.substr(at + 1));
        at = section.find('\n', at + 1);
        if (line.starts_with("new file mode ")) {
            file.change = PatchFile::Change::Added;
            file.newMode = octal(line.substr(14));
        } else if (line.starts_with("deleted file mode ")) {
            file.change = PatchFile::Change::Deleted;
            file.oldMode = octal(line.substr(18));
        } else if (line.starts_with("old mode ")) {
            file.oldMode = octal(line.substr(9));
        } else if (line.starts_with("new mode ")) {
            file.newMode = octal(line.substr(9));
        } else if (line.starts_with("index ")) {
            if (const auto space = line.rfind(' '); space > 6 && file.oldMode == 0 && file.newMode == 0 &&
                                                    file.change == PatchFile::Change::Modified)
                file.oldMode = file.newMode = octal(line.substr(space + 1));
        } else if (line == "GIT binary patch" || line.starts_with("Binary files ")) {
            file.binary = true;
            return;
        } else if (line.starts_with("@@") || line.starts_with("--- ")) {
            return;
        }
    }
}

} // namespace

const char* describe(PatchFile::Change change) {
    switch (change) {
    case PatchFile::Change::Added:
        return "added";
    case PatchFile::Change::Deleted:
        return "deleted";
    case PatchFile::Change::Modified:
        break;
    }
    return "modified";
}

std::optional<std::string> unquoteGitName(std::string_view quoted) {
    std::size_t consumed = 0;
    auto name = unquoteAt(quoted, consumed);
    if (!name || consumed != quoted.size())
        return std::nullopt;
    return name;
}

Result<std::vector<PatchSection>> splitPatch(std::string_view patch) {
    std::vector<PatchSection> sections;
    std::size_t start = std::string_view::npos;
    const auto close = [&](std::size_t end) -> Status {
        PatchSection section;
        section.text = patch.substr(start, end - start);
        auto path = headerPath(firstLine(section.text));
        if (!path)
            return path.error();
        if (auto checked = checkPath(*path); !checked)
            return checked.error();
        section.file.path = std::move(*path);
        readExtendedHeader(section.text, section.file);
        sections.push_back(std::move(section));
        return Ok{};
    };
    for (std::size_t at = 0; at < patch.size();) {
        const std::size_t end = std::min(patch.find('\n', at), patch.size());
        if (patch.substr(at).starts_with(kHeader)) {
            if (start != std::string_view::npos)
                if (auto closed = close(at); !closed)
                    return closed.error();
            start = at;
        } else if (start == std::string_view::npos &&
                   patch.substr(at, end - at).find_first_not_of(" \t\r") != std::string_view::npos) {
            return makeError(
                ErrorCode::InvalidArgument,
                "the patch does not start with \"diff --git\": it is not a patch the server made");
        }
        at = end + 1;
    }
    if (start != std::string_view::npos)
        if (auto closed = close(patch.size()); !closed)
            return closed.error();
    return sections;
}

Result<std::vector<PatchFile>> patchFiles(std::string_view patch) {
    auto sections = splitPatch(patch);
    if (!sections)
        return sections.error();
    std::vector<PatchFile> files;
    for (const auto& section : *sections) {
        auto same = std::find_if(files.begin(), files.end(),
                                 [&](const PatchFile& file) { return file.path == section.file.path; });
        if (same == files.end()) {
            files.push_back(section.file);
            continue;
        }
        // A type change: the deletion of the old and the creation of the new.
        same->change = PatchFile::Change::Modified;
        same->binary = same->binary || section.file.binary;
        if (section.file.newMode != 0)
            same->newMode = section.file.newMode;
        if (section.file.oldMode != 0 && same->oldMode == 0)
            same->oldMode = section.file.oldMode;
    }
    return files;
}

std::optional<std::string> preimageBlob(std::string_view section) {
    std::size_t at = section.find('\n');
    while (at != std::string_view::npos && at + 1 < section.size()) {
        const std::string_view line = firstLine(section.substr(at + 1));
        at = section.find('\n', at + 1);
        if (line.starts_with("@@") || line.starts_with("--- ") || line == "GIT binary patch" ||
            line.starts_with("Binary files "))
            return std::nullopt;
        if (!line.starts_with("index "))
            continue;
        const std::string_view ids = line.substr(6);
        const auto dots = ids.find("..");
        if (dots != 40) // SHA-1, as git diff --no-index names blobs
            return std::nullopt;
        const std::string_view old = ids.substr(0, dots);
        if (old.find_first_not_of("0123456789abcdef") != std::string_view::npos ||
            old.find_first_not_of('0') == std::string_view::npos)
            return std::nullopt;
        return std::string(old);
    }
    return std::nullopt;
}

bool isGitComponent(std::string_view part) {
    if (part.size() != 4)
        return false;
    for (std::size_t i = 0; i < 4; ++i)
        if (std::tolower(static_cast<unsigned char>(part[i])) != ".git"[i])
            return false;
    return true;
}

} // namespace warren::git
