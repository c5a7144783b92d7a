#include "sandbox/bwrap/CgroupFiles.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <system_error>

namespace warren::sandbox {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream stream(text);
    while (std::getline(stream, part, separator))
        if (!part.empty())
            parts.push_back(part);
    return parts;
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream stream(text);
    std::string word;
    while (stream >> word)
        result.push_back(word);
    return result;
}

} // namespace

std::vector<ProcCgroupEntry> parseProcCgroup(const std::string& content) {
    std::vector<ProcCgroupEntry> entries;
    std::istringstream lines(content);
    std::string line;
    while (std::getline(lines, line)) {
        const auto first = line.find(':');
        const auto second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos || first == 0)
            continue;
        ProcCgroupEntry entry;
        const auto id = std::from_chars(line.data(), line.data() + first, entry.hierarchyId);
        if (id.ec != std::errc{} || id.ptr != line.data() + first || entry.hierarchyId < 0)
            continue;
        entry.controllers = split(line.substr(first + 1, second - first - 1), ',');
        entry.path = line.substr(second + 1); // a cgroup path may itself contain ':'
        if (entry.path.empty() || entry.path.front() != '/')
            continue;
        entries.push_back(std::move(entry));
    }
    return entries;
}

namespace {
// mountinfo escapes space, tab, newline and backslash in paths as \ooo octal.
std::string decodeOctalEscapes(const std::string& text) {
    std::string decoded;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size()) {
            const std::string digits = text.substr(i + 1, 3);
            if (digits.size() == 3 &&
                std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
                decoded += static_cast<char>(std::stoi(digits, nullptr, 8));
                i += 3;
                continue;
            }
        }
        decoded += text[i];
    }
    return decoded;
}
} // namespace

std::optional<MountInfoEntry> parseMountInfoLine(const std::string& line) {
    // "36 35 98:0 /root /mount/point rw,noatime [optional fields...] - fstype source super,options"
    const auto fields = words(line);
    const auto separator = std::find(fields.begin(), fields.end(), "-");
    if (separator == fields.end() || separator - fields.begin() < 6 || fields.end() - separator < 4)
        return std::nullopt;
    MountInfoEntry entry;
    entry.root = decodeOctalEscapes(fields[3]);
    entry.mountPoint = decodeOctalEscapes(fields[4]);
    entry.fsType = *(separator + 1);
    entry.superOptions = split(*(separator + 3), ',');
    return entry;
}

std::optional<std::string> cgroupDirectory(const MountInfoEntry& mount, const std::string& ownPath) {
    if (ownPath.empty() || ownPath.front() != '/')
        return std::nullopt;
    std::string mountPoint = mount.mountPoint;
    while (mountPoint.size() > 1 && mountPoint.back() == '/')
        mountPoint.pop_back();
    const std::string& root = mount.root;
    std::string relative;
    if (root == "/")
        relative = ownPath == "/" ? "" : ownPath;
    else if (ownPath == root)
        relative = "";
    else if (ownPath.size() > root.size() && ownPath.compare(0, root.size(), root) == 0 &&
             ownPath[root.size()] == '/')
        relative = ownPath.substr(root.size());
    else
        return std::nullopt;
    if (mountPoint == "/")
        return relative.empty() ? "/" : relative;
    return mountPoint + relative;
}

std::optional<std::uint64_t> flatKeyedValue(const std::string& content, const std::string& key) {
    std::istringstream lines(content);
    std::string line;
    while (std::getline(lines, line)) {
        const auto fields = words(line);
        if (fields.size() != 2 || fields[0] != key)
            continue;
        std::uint64_t value = 0;
        const auto& text = fields[1];
        const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
        if (parsed.ec == std::errc{} && parsed.ptr == text.data() + text.size())
            return value;
        return std::nullopt;
    }
    return std::nullopt;
}

std::vector<std::string> parseControllers(const std::string& content) { return words(content); }

} // namespace warren::sandbox
