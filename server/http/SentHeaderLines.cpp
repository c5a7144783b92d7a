#include "server/http/SentHeaderLines.h"

#include <cstdint>
#include <microhttpd.h>
#include <vector>

namespace warren::http {

namespace {

struct Field {
    const char* name;
    size_t nameLength;
    const char* value;
    size_t valueLength;
};

// The head fits in the connection's memory (HttpServerLimits::connectionMemoryBytes); a distance past
// this is not within one buffer.
constexpr std::uintptr_t maxDistance = 1u << 24;

std::optional<std::uintptr_t> distance(const char* from, const char* to) {
    const auto a = reinterpret_cast<std::uintptr_t>(from);
    const auto b = reinterpret_cast<std::uintptr_t>(to);
    if (b < a || b - a > maxDistance)
        return std::nullopt;
    return b - a;
}

bool allNul(const char* bytes, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (bytes[i] != '\0')
            return false;
    }
    return true;
}

} // namespace

std::optional<QList<QByteArray>> sentHeaderLines(MHD_Connection* connection) {
    std::vector<Field> fields;
    MHD_get_connection_values_n(
        connection, MHD_HEADER_KIND,
        [](void* cls, MHD_ValueKind, const char* key, size_t keySize, const char* value, size_t valueSize) {
            static_cast<std::vector<Field>*>(cls)->push_back({key, keySize, value ? value : "", valueSize});
            return MHD_YES;
        },
        &fields);
    QList<QByteArray> lines;
    lines.reserve(static_cast<qsizetype>(fields.size()));
    for (size_t i = 0; i < fields.size(); ++i) {
        const Field& field = fields[i];
        // name, the NUL that was its colon, optional whitespace, the value: all within one line.
        const auto toValue = distance(field.name, field.value);
        if (!toValue || *toValue < field.nameLength + 1 || field.name[field.nameLength] != '\0')
            return std::nullopt;
        for (size_t at = field.nameLength + 1; at < *toValue; ++at) {
            if (field.name[at] != ' ' && field.name[at] != '\t')
                return std::nullopt;
        }
        size_t valueBytes = field.valueLength;
        if (i + 1 < fields.size()) {
            // What lies between strlen's end of the value and the next line's CRLF belongs to this value.
            const auto toNext = distance(field.value, fields[i + 1].name);
            if (!toNext || *toNext < field.valueLength + 2 || !allNul(fields[i + 1].name - 2, 2))
                return std::nullopt;
            valueBytes = *toNext - 2;
        } else if (!allNul(field.value + field.valueLength, 4)) {
            // The last line: its CRLF and the empty line's, or something after a NUL in the value.
            return std::nullopt;
        }
        QByteArray line(field.name, static_cast<qsizetype>(*toValue + valueBytes));
        line[static_cast<qsizetype>(field.nameLength)] = ':';
        lines.append(std::move(line));
    }
    return lines;
}

} // namespace warren::http
