// Feeds arbitrary bytes, as the header lines of a request head, through checkRequestHead (the first byte
// picks HTTP/1.1 or HTTP/1.0; the rest is split at each CRLF), and the first 16 bytes as an IPv4 and an
// IPv6 client address through clientAddressKey. Nothing may crash or trip a sanitizer, and a head the
// check accepts must be one no two parsers could frame differently: no control byte but HTAB in any line,
// every line a token name and a colon, at most one of each singleton header, and not Content-Length with
// Transfer-Encoding.
// Built and run like fuzz_protocol_line (docs/PROTOCOL.md, "Fuzzing"), with its own seeds:
//   build-fuzz/tests/fuzz/fuzz_request_head -max_total_time=60 build-fuzz/corpus-request-head
//   tests/fuzz/corpus-request-head

#include "server/http/ClientAddressKey.h"
#include "server/http/RequestHeadCheck.h"

#include <QSet>
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <netinet/in.h>

using namespace warren::http;

namespace {

void require(bool condition) {
    if (!condition)
        __builtin_trap();
}

bool isTokenChar(unsigned char c) {
    return std::isalnum(c) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

void checkAccepted(const QList<QByteArray>& lines) {
    QSet<QByteArray> singletons;
    bool contentLength = false;
    bool transferEncoding = false;
    for (const QByteArray& line : lines) {
        for (const char c : line)
            require((static_cast<unsigned char>(c) >= 0x20 || c == '\t') && c != 0x7f);
        const qsizetype colon = line.indexOf(':');
        require(colon > 0);
        for (qsizetype i = 0; i < colon; ++i)
            require(static_cast<unsigned char>(line[i]) != 0 &&
                    isTokenChar(static_cast<unsigned char>(line[i])));
        const QByteArray name = line.first(colon).toLower();
        if (isSingletonHeader(name)) {
            require(!singletons.contains(name));
            singletons.insert(name);
        }
        contentLength = contentLength || name == "content-length";
        transferEncoding = transferEncoding || name == "transfer-encoding";
    }
    require(!(contentLength && transferEncoding));
}

void exerciseAddresses(const std::uint8_t* data, std::size_t size) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    std::memcpy(&in6.sin6_addr, data, std::min<std::size_t>(size, 16));
    const QByteArray six = clientAddressKey(reinterpret_cast<const sockaddr*>(&in6));
    require(!six.isEmpty());
    // Two addresses that differ only in their last 64 bits are one client.
    sockaddr_in6 other = in6;
    other.sin6_addr.s6_addr[15] ^= 0x5a;
    const bool mapped = std::memcmp(in6.sin6_addr.s6_addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0;
    require(mapped || clientAddressKey(reinterpret_cast<const sockaddr*>(&other)) == six);
    sockaddr_in in{};
    in.sin_family = AF_INET;
    std::memcpy(&in.sin_addr, data, std::min<std::size_t>(size, 4));
    require(!clientAddressKey(reinterpret_cast<const sockaddr*>(&in)).isEmpty());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const QByteArrayView version = (data[0] & 1) ? QByteArrayView("HTTP/1.0") : QByteArrayView("HTTP/1.1");
    const QByteArray head(reinterpret_cast<const char*>(data + 1), static_cast<qsizetype>(size - 1));
    QList<QByteArray> lines;
    for (qsizetype at = 0; at <= head.size();) {
        qsizetype end = head.indexOf("\r\n", at);
        if (end < 0)
            end = head.size();
        lines.append(head.mid(at, end - at));
        at = end + 2;
    }
    const std::optional<HeadRefusal> refusal = checkRequestHead(lines, version);
    if (!refusal)
        checkAccepted(lines);
    else
        require(!refusal->code.isEmpty() && !refusal->message.isEmpty());
    exerciseAddresses(data, size);
    return 0;
}
