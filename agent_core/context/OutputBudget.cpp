#include "agent_core/context/OutputBudget.h"

#include "agent_core/context/TokenEstimate.h"

#include <algorithm>

namespace warren::agent {

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A line end within the last quarter before `end`: cut there (just after the newline) rather than
// mid-line; else `end` itself, moved back off a character's continuation bytes.
std::size_t headEnd(std::string_view text, std::size_t end) {
    const std::size_t newline = text.rfind('\n', end == 0 ? 0 : end - 1);
    if (newline != std::string_view::npos && newline + 1 >= end - end / 4)
        return newline + 1;
    while (end > 0 && end < text.size() && isContinuation(text[end]))
        --end;
    return end;
}

// The same for the tail: a line start within the first quarter after `start`, else `start` moved forward
// off continuation bytes.
std::size_t tailStart(std::string_view text, std::size_t start) {
    const std::size_t room = (text.size() - start) / 4;
    const std::size_t newline = text.find('\n', start);
    if (newline != std::string_view::npos && newline < start + room)
        return newline + 1;
    while (start < text.size() && isContinuation(text[start]))
        ++start;
    return start;
}

} // namespace

FittedOutput fitToBudget(std::string_view text, std::uint64_t budgetTokens, std::string_view hint) {
    const std::uint64_t budgetBytes = budgetTokens * kBytesPerToken;
    if (text.size() <= budgetBytes)
        return {std::string(text), false, 0, 0};
    const std::size_t half = static_cast<std::size_t>(budgetBytes / 2);
    const std::size_t head = headEnd(text, half);
    const std::size_t tail = std::max(head, tailStart(text, text.size() - half));
    const std::string_view left = text.substr(head, tail - head);
    FittedOutput out;
    out.cut = true;
    out.cutLines = static_cast<std::uint64_t>(std::count(left.begin(), left.end(), '\n')) +
                   (left.empty() || left.back() == '\n' ? 0 : 1);
    out.cutTokens = (left.size() + kBytesPerToken - 1) / kBytesPerToken;
    out.text.reserve(head + (text.size() - tail) + 160);
    out.text.append(text.substr(0, head));
    if (!out.text.empty() && out.text.back() != '\n')
        out.text += '\n';
    out.text += "[... " + std::to_string(out.cutLines) + (out.cutLines == 1 ? " line" : " lines") + " (about " +
                std::to_string(out.cutTokens) + " tokens) cut. " + std::string(hint) + " ...]\n";
    out.text.append(text.substr(tail));
    return out;
}

std::string narrowingHint(std::string_view tool) {
    if (tool == "shell")
        return "To see what was cut, narrow the command: pipe it through head, tail or grep, or redirect the "
               "output to a file and read the part you need with read_file offset and limit";
    if (tool == "read_file")
        return "Read a smaller range with offset and limit, or find the lines you need with search first";
    if (tool == "search")
        return "Narrow the search: a more specific pattern, a path or a glob";
    if (tool == "list_files")
        return "List a subdirectory, or a smaller depth";
    if (tool == "memory_search")
        return "Search with a more specific query or a smaller limit";
    if (tool == "skill")
        return "The whole file is in the skill's folder: read the part you need with shell (sed -n on a "
               "range)";
    return "Ask for less at a time";
}

} // namespace warren::agent
