#pragma once
// The byte-level text helpers the allow-list (EgressPolicy) and the proxy head (ProxyHead) both parse with.
// ASCII only, on purpose: host names and HTTP heads are ASCII, and a locale must never change a verdict.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control::ascii {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

inline char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string lowered(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), lower);
    return result;
}

// Without the spaces and tabs at either end.
inline std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

// The comma-separated items, each trimmed; empty items are kept (callers refuse them with their own words).
inline std::vector<std::string_view> splitList(std::string_view list) {
    std::vector<std::string_view> items;
    for (std::size_t start = 0;;) {
        const std::size_t comma = list.find(',', start);
        items.push_back(trimmed(list.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                   : comma - start)));
        if (comma == std::string_view::npos)
            return items;
        start = comma + 1;
    }
}

} // namespace warren::control::ascii
