#include "app/modelproxy/RelayedAnswer.h"

#include <cstdio>

namespace warren::control {

std::string relayedHead(int status, const std::string& reason, const QList<QNetworkReply::RawHeaderPair>& headers,
                        const std::function<bool(std::string_view)>& drops,
                        const std::function<std::string(std::string)>& mask, RelayedFraming framing) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + mask(reason) + "\r\n";
    for (const auto& [name, value] : headers) {
        if (drops(name.toStdString()))
            continue;
        // A value Qt joined from several lines holds a line break: each line is a header again.
        for (const QByteArray& line : value.split('\n'))
            head += name.toStdString() + ": " + mask(line.toStdString()) + "\r\n";
    }
    if (framing == RelayedFraming::Chunked)
        head += "Transfer-Encoding: chunked\r\n";
    else if (framing == RelayedFraming::NoBody)
        head += "Content-Length: 0\r\n";
    return head + "Connection: close\r\n\r\n";
}

std::string relayedChunk(std::string_view bytes) {
    if (bytes.empty())
        return {};
    char size[20];
    const int length = std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
    return std::string(size, std::size_t(length)) + std::string(bytes) + "\r\n";
}

} // namespace warren::control
