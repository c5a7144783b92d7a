#include "app/store/MemoryQuery.h"

namespace warren::control {

namespace {

bool isWordByte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The words, each between open and close, joined with separator. A word holds no quote of either kind,
// so quoting cannot be escaped from.
std::string quotedWords(std::string_view query, char quote, std::string_view separator) {
    std::string out;
    for (const std::string_view word : memoryWords(query)) {
        if (!out.empty())
            out += separator;
        out += quote;
        out += word;
        out += quote;
    }
    return out;
}

} // namespace

std::vector<std::string_view> memoryWords(std::string_view query) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < query.size()) {
        if (!isWordByte(query[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < query.size() && isWordByte(query[i]))
            ++i;
        words.push_back(query.substr(start, i - start));
    }
    return words;
}

std::string ftsMatchQuery(std::string_view query) {
    return quotedWords(query, '"', " OR ");
}

std::string tsQueryText(std::string_view query) {
    return quotedWords(query, '\'', " | ");
}

std::string likeSubstringPattern(std::string_view query) {
    std::string out = "%";
    for (const char c : query) {
        if (c == '%' || c == '_' || c == '\\')
            out += '\\';
        out += c;
    }
    out += '%';
    return out;
}

std::string asciiLower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

} // namespace warren::control
