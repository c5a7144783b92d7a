#pragma once
// The byte-level text helpers the allow-list (EgressPolicy) and the two proxies' request heads (ProxyHead,
// modelproxy's ModelRequestHead) parse with.
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

inline bool equalsIgnoringCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// RFC 9110 token characters: header names and methods.
inline bool isTokenChar(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c))
        return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

inline bool isToken(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), isTokenChar);
}

// What is wrong with bytes of a request head that a head never holds: NUL, a CR not followed by LF, an LF
// not preceded by CR, other control characters (tab aside); nullptr when none is there. Different servers
// split such heads differently, which is how requests are smuggled past a proxy. A CR at the very end of an
// incomplete buffer (complete false) may yet be followed by its LF.
inline const char* badHeadByte(std::string_view bytes, bool complete) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == 0)
            return "the request head holds a NUL byte";
        if (c == '\r') {
            if (i + 1 < bytes.size() ? bytes[i + 1] != '\n' : complete)
                return "the request head holds a CR that does not end a line: end lines with CRLF";
        } else if (c == '\n') {
            if (i == 0 || bytes[i - 1] != '\r')
                return "the request head holds a bare LF: end lines with CRLF";
        } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return "the request head holds a control character";
        }
    }
    return nullptr;
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
