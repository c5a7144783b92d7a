#pragma once
// The framing rules a request head must meet before anything reads its body (RFC 9112 §5, §6.1, §6.3),
// as a pure function over the header field lines exactly as the client sent them. A head that two HTTP
// parsers could read differently is refused, not interpreted: a proxy in front of warrend that frames the
// body by Content-Length while the server framed it by Transfer-Encoding (or took the other of two
// Content-Lengths, or did not see "Transfer-Encoding :" as Transfer-Encoding) would otherwise forward the
// rest of the body as a second request of the server's choosing (request smuggling). The server answers
// a refusal with 400 and closes the connection, so nothing after it on that connection is read.

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace warren::http {

struct HeadRefusal {
    QByteArray code; // "ambiguous_framing" or "bad_header"
    QString message; // names the header and the rule, for the client's developer
};

// fieldLines: each header field line of the head without its CRLF, the colon included, in the order sent
// ("Content-Length: 5"). httpVersion: "HTTP/1.1" or "HTTP/1.0" as on the request line.
std::optional<HeadRefusal> checkRequestHead(const QList<QByteArray>& fieldLines, QByteArrayView httpVersion);

// Whether a header of this name may appear at most once in a request (compared case-insensitively).
bool isSingletonHeader(QByteArrayView name);

} // namespace warren::http
