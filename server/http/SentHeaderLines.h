#pragma once
// The header field lines of a request as the client sent them, recovered from libmicrohttpd, for
// checkRequestHead. Internal to warren_http.
//
// libmicrohttpd 0.9.75 parses the head in place: each CRLF becomes two NULs, each field's colon one NUL,
// and it measures names and values with strlen, so a value "abc<NUL>def" is reported as "abc" and the rest
// is lost to MHD_get_connection_values_n. The bytes are still there, in order, in the connection's buffer;
// a field line runs from its name to two NULs just before the next name (the last one: to the NULs of its
// own CRLF and of the empty line). Where the layout is not that (a line ended by a bare LF, a folded line,
// which libmicrohttpd copies elsewhere), the head is not what RFC 9112 allows and there are no lines to give.

#include <QByteArray>
#include <QList>
#include <optional>

struct MHD_Connection;

namespace warren::http {

std::optional<QList<QByteArray>> sentHeaderLines(MHD_Connection* connection);

} // namespace warren::http
