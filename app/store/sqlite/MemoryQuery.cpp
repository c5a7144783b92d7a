#include "app/store/sqlite/MemoryQuery.h"

namespace warren::control {

namespace {

bool isWordByte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

} // namespace

std::string ftsMatchQuery(std::string_view query) {
    std::string out;
    std::size_t i = 0;
    while (i < query.size()) {
        if (!isWordByte(query[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < query.size() && isWordByte(query[i]))
            ++i;
        if (!out.empty())
            out += " OR ";
        // A word holds no '"', so quoting cannot be escaped from.
        out += '"';
        out += query.substr(start, i - start);
        out += '"';
    }
    return out;
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

} // namespace warren::control
