#pragma once
// An answer a proxy received with QNetworkAccessManager, passed back to the sandbox over a connection that
// carries one request (the model proxy, the secret proxy): the status line and the headers kept, each
// through the caller's mask, then the framing the proxy redoes (the body may have been decompressed):
// chunked to an HTTP/1.1 client, to the connection's end for HTTP/1.0, none for a body-less answer; always
// Connection: close.

#include <QList>
#include <QNetworkReply>
#include <functional>
#include <string>
#include <string_view>

namespace warren::control {

enum class RelayedFraming { Chunked, UntilClose, NoBody };

// Which header names stay behind (lowercase compared by the predicate's own rule), and what every text
// passed back goes through (a key or a secret's value masked).
std::string relayedHead(int status, const std::string& reason, const QList<QNetworkReply::RawHeaderPair>& headers,
                        const std::function<bool(std::string_view)>& drops,
                        const std::function<std::string(std::string)>& mask, RelayedFraming framing);

// One chunk of a chunked body: its size in hex, the bytes, CRLF. Empty bytes: nothing (the last chunk is
// "0\r\n\r\n", written when the answer ends well).
std::string relayedChunk(std::string_view bytes);

} // namespace warren::control
