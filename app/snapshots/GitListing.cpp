#include "app/snapshots/GitListing.h"

#include <charconv>

namespace warren::snapshots {

namespace {

Error malformed(std::string_view what, std::string_view record) {
    return makeError(ErrorCode::System, "git's " + std::string(what) + " output is not as expected: \"" +
                                            std::string(record.substr(0, 120)) + "\"");
}

bool parseOctal(std::string_view text, std::uint32_t& value) {
    if (text.empty())
        return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 8);
    return error == std::errc() && end == text.data() + text.size();
}

bool isObjectId(std::string_view text) {
    if (text.size() != 40 && text.size() != 64)
        return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

} // namespace

std::vector<std::string> splitNul(std::string_view out) {
    std::vector<std::string> records;
    while (!out.empty()) {
        const auto nul = out.find('\0');
        records.emplace_back(out.substr(0, nul));
        if (nul == std::string_view::npos)
            break;
        out.remove_prefix(nul + 1);
    }
    return records;
}

Result<std::vector<IndexEntry>> parseIndexEntries(std::string_view out) {
    std::vector<IndexEntry> entries;
    for (const auto& record : splitNul(out)) {
        const auto tab = record.find('\t');
        const auto firstSpace = record.find(' ');
        const auto secondSpace =
            firstSpace == std::string::npos ? std::string::npos : record.find(' ', firstSpace + 1);
        if (tab == std::string::npos || secondSpace == std::string::npos || secondSpace > tab ||
            tab + 1 == record.size())
            return malformed("ls-files", record);
        IndexEntry entry;
        const std::string_view view(record);
        const auto object = view.substr(firstSpace + 1, secondSpace - firstSpace - 1);
        const auto stage = view.substr(secondSpace + 1, tab - secondSpace - 1);
        if (!parseOctal(view.substr(0, firstSpace), entry.mode) || !isObjectId(object) || stage.size() != 1 ||
            stage[0] < '0' || stage[0] > '3')
            return malformed("ls-files", record);
        entry.object = std::string(object);
        entry.stage = stage[0] - '0';
        entry.path = record.substr(tab + 1);
        entries.push_back(std::move(entry));
    }
    return entries;
}

Result<std::vector<TreeChange>> parseRawDiff(std::string_view out) {
    std::vector<TreeChange> changes;
    const auto records = splitNul(out);
    for (std::size_t i = 0; i < records.size(); i += 2) {
        const std::string_view head(records[i]);
        if (i + 1 >= records.size() || records[i + 1].empty())
            return malformed("diff-tree", head);
        // ":100644 100755 OLD NEW M"
        std::vector<std::string_view> fields;
        std::string_view rest = head.substr(head.empty() ? 0 : 1);
        while (!rest.empty()) {
            const auto space = rest.find(' ');
            fields.push_back(rest.substr(0, space));
            if (space == std::string_view::npos)
                break;
            rest.remove_prefix(space + 1);
        }
        TreeChange change;
        if (head.empty() || head[0] != ':' || fields.size() != 5 || !parseOctal(fields[0], change.oldMode) ||
            !parseOctal(fields[1], change.newMode) || !isObjectId(fields[2]) || !isObjectId(fields[3]) ||
            fields[4].size() != 1 || std::string_view("ADMT").find(fields[4][0]) == std::string_view::npos)
            return malformed("diff-tree", head);
        change.oldObject = std::string(fields[2]);
        change.newObject = std::string(fields[3]);
        change.status = fields[4][0];
        change.path = records[i + 1];
        changes.push_back(std::move(change));
    }
    return changes;
}

} // namespace warren::snapshots
