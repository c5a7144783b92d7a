#pragma once
// The two decodings a request's URL needs. The server gets the path as sent (it turns off libmicrohttpd's
// unescaping), so that an encoded "/" inside a segment stays inside that segment.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace warren::http {

// "/v1/tasks/a%2Fb" → {"v1", "tasks", "a/b"}; an empty segment stays (a trailing "/" is one). Nothing for
// a path that does not start with "/" or that decodes to something other than UTF-8.
std::optional<QStringList> decodePathSegments(QByteArrayView rawPath);

// A query name or value: "+" is a space, then percent-decoding; invalid UTF-8 becomes U+FFFD.
QString decodeQueryComponent(QByteArrayView raw);

} // namespace warren::http
