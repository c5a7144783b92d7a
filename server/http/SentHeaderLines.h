#pragma once
// The header field lines of a request as the client sent them, recovered from libmicrohttpd, for
// checkRequestHead. Internal to warren_http.
//
// libmicrohttpd 0.9.75 parses the head in place: each CRLF becomes two NULs, each field's colon one NUL,
// and it measures names and values with strlen, so a value "abc<NUL>def" is reported as "abc" and the rest
// is lost to MHD_get_connection_values_n. The bytes are still there, in order, in the connection's buffer,
// which holds the whole head from the method (the request line is parsed in place too) for
// MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE bytes: a field line runs from its name to the two NULs just before
// the next name, the last one to the four NULs that end the head (its CRLF and the empty line's). Where the
// layout is not that (a line ended by a bare LF; a folded line, whose name libmicrohttpd copies elsewhere),
// the head is not what RFC 9112 allows and there are no lines to give.

#include <QByteArray>
#include <QList>
#include <optional>

struct MHD_Connection;

namespace warren::http {

// method: the access handler's, which points at the start of the head in the connection's buffer.
std::optional<QList<QByteArray>> sentHeaderLines(MHD_Connection* connection, const char* method);

} // namespace warren::http
