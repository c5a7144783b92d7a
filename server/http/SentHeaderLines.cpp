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

// How far to is past from, or nothing when it is before it (compared as integers: the two may not be in
// one object).
std::optional<std::uintptr_t> distance(const char* from, const char* to) {
    const auto a = reinterpret_cast<std::uintptr_t>(from);
    const auto b = reinterpret_cast<std::uintptr_t>(to);
    if (b < a)
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

std::optional<QList<QByteArray>> sentHeaderLines(MHD_Connection* connection, const char* method) {
    const auto* headInfo = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (!headInfo || !method)
        return std::nullopt;
    const size_t headSize = headInfo->header_size;
    const char* const headEnd = method + headSize;
    // Every byte read below lies between the method and the head's end, or the layout is not the one
    // expected and nothing is read.
    const auto withinHead = [&](const char* at, size_t length) {
        const auto offset = distance(method, at);
        return offset && *offset <= headSize && length <= headSize - *offset;
    };
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
        if (!withinHead(field.name, field.nameLength + 1) || !withinHead(field.value, field.valueLength))
            return std::nullopt;
        // name, the NUL that was its colon, optional whitespace, the value: all within one line.
        const auto toValue = distance(field.name, field.value);
        if (!toValue || *toValue < field.nameLength + 1 || field.name[field.nameLength] != '\0')
            return std::nullopt;
        for (size_t at = field.nameLength + 1; at < *toValue; ++at) {
            if (field.name[at] != ' ' && field.name[at] != '\t')
                return std::nullopt;
        }
        // What lies between strlen's end of the value and the line's CRLF belongs to the value: the next
        // line starts right after that CRLF; the last line's CRLF and the empty line's end the head.
        const bool last = i + 1 == fields.size();
        const size_t ending = last ? 4 : 2;
        const char* const lineEnd = last ? headEnd - ending : fields[i + 1].name - ending;
        const auto valueBytes = distance(field.value, lineEnd);
        if (!valueBytes || *valueBytes < field.valueLength || !withinHead(lineEnd, ending) ||
            !allNul(lineEnd, ending))
            return std::nullopt;
        QByteArray line(field.name, static_cast<qsizetype>(*toValue + *valueBytes));
        line[static_cast<qsizetype>(field.nameLength)] = ':';
        lines.append(std::move(line));
    }
    return lines;
}

} // namespace warren::http
