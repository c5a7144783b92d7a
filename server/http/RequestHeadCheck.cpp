#include "server/http/RequestHeadCheck.h"

#include <QHash>
#include <algorithm>

namespace warren::http {

namespace {

// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" /
// "|" / "~" / DIGIT / ALPHA.
bool isTokenChar(unsigned char c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

// RFC 9110 §5.5: a field value is VCHAR, obs-text, SP and HTAB; NUL, CR, LF and the other controls are
// not allowed. A recipient that cuts at a NUL or splits at a CR sees another value than one that does not.
bool isControl(unsigned char c) {
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

bool isWhitespace(char c) {
    return c == ' ' || c == '\t';
}

QByteArray trimmedOws(QByteArrayView value) {
    qsizetype begin = 0;
    qsizetype end = value.size();
    while (begin < end && isWhitespace(value[begin]))
        ++begin;
    while (end > begin && isWhitespace(value[end - 1]))
        --end;
    return value.sliced(begin, end - begin).toByteArray();
}

// A name or value quoted for a message: printable ASCII as is, anything else as \xNN, and cut short.
QString shown(QByteArrayView bytes) {
    QString out;
    for (qsizetype i = 0; i < bytes.size() && out.size() < 64; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7f)
            out += QLatin1Char(static_cast<char>(c));
        else
            out += QStringLiteral("\\x%1").arg(c, 2, 16, QLatin1Char('0'));
    }
    if (out.size() >= 64)
        out += QStringLiteral("...");
    return out;
}

HeadRefusal badHeader(QString message) {
    return {"bad_header", std::move(message)};
}

HeadRefusal ambiguous(QString message) {
    return {"ambiguous_framing", std::move(message)};
}

} // namespace

bool isSingletonHeader(QByteArrayView name) {
    // Fields the server (or a proxy in front of it) reads as one value, where two would let one reader take
    // the first and another the last: framing, the target, the credentials, the body's type, and the
    // request's own identity (retries, event resumption).
    static const char* const singletons[] = {
        "Host",
        "Authorization",
        "Proxy-Authorization",
        "Content-Length",
        "Transfer-Encoding",
        "Content-Type",
        "Content-Encoding",
        "Content-Range",
        "Range",
        "Idempotency-Key",
        "Last-Event-ID",
        "Origin",
        "Cookie",
        "If-Modified-Since",
        "If-Unmodified-Since",
        "Expect",
    };
    for (const char* singleton : singletons) {
        if (name.compare(QByteArrayView(singleton), Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

std::optional<HeadRefusal> checkRequestHead(const QList<QByteArray>& fieldLines, QByteArrayView httpVersion) {
    QHash<QByteArray, int> seen; // lower-case name → how many times
    std::optional<QByteArray> contentLength;
    std::optional<QByteArray> transferEncoding;
    for (const QByteArray& line : fieldLines) {
        const qsizetype colon = line.indexOf(':');
        if (colon < 0)
            return badHeader(QStringLiteral("The header line \"%1\" has no colon.").arg(shown(line)));
        const QByteArrayView name = QByteArrayView(line).first(colon);
        if (name.isEmpty())
            return badHeader(QStringLiteral("A header line starts with a colon: it has no name."));
        for (const char c : name) {
            if (!isTokenChar(static_cast<unsigned char>(c))) {
                return badHeader(
                    QStringLiteral(
                        "The header name \"%1\" holds a character a name may not have (%2): a name "
                        "is letters, digits and !#$%&'*+-.^_`|~, with no space before the colon "
                        "(RFC 9112 §5.1).")
                        .arg(shown(name), shown(QByteArrayView(&c, 1))));
            }
        }
        const QByteArrayView rawValue = QByteArrayView(line).sliced(colon + 1);
        for (const char c : rawValue) {
            if (isControl(static_cast<unsigned char>(c))) {
                return badHeader(QStringLiteral("The value of the header %1 holds a control character (%2); "
                                                "NUL, CR, LF and the other controls are not allowed in a "
                                                "header value (RFC 9110 §5.5).")
                                     .arg(shown(name), shown(QByteArrayView(&c, 1))));
            }
        }
        const QByteArray lower = name.toByteArray().toLower();
        const int count = ++seen[lower];
        if (count > 1 && isSingletonHeader(name)) {
            if (lower == "content-length" || lower == "transfer-encoding") {
                return ambiguous(QStringLiteral("The request has more than one %1 header: its body's length "
                                                "is ambiguous (RFC 9112 §6.3). Send it once.")
                                     .arg(shown(name)));
            }
            return badHeader(QStringLiteral("The request has more than one %1 header; it may appear once.")
                                 .arg(shown(name)));
        }
        if (lower == "content-length")
            contentLength = trimmedOws(rawValue);
        else if (lower == "transfer-encoding")
            transferEncoding = trimmedOws(rawValue);
    }
    if (contentLength && transferEncoding) {
        return ambiguous(
            QStringLiteral("The request has both Content-Length and Transfer-Encoding: its body's "
                           "length is ambiguous (RFC 9112 §6.1). Send one of them."));
    }
    if (contentLength) {
        const bool digits = !contentLength->isEmpty() && contentLength->size() <= 18 &&
                            std::all_of(contentLength->begin(), contentLength->end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) {
            return ambiguous(QStringLiteral("Content-Length \"%1\" is not a number of bytes (RFC 9110 §8.6).")
                                 .arg(shown(*contentLength)));
        }
    }
    if (transferEncoding) {
        if (httpVersion != QByteArrayView("HTTP/1.1")) {
            return ambiguous(QStringLiteral("Transfer-Encoding in an %1 request: its framing is faulty "
                                            "(RFC 9112 §6.1). Send Content-Length, or use HTTP/1.1.")
                                 .arg(shown(httpVersion)));
        }
        if (transferEncoding->compare("chunked", Qt::CaseInsensitive) != 0) {
            return ambiguous(QStringLiteral("Transfer-Encoding \"%1\" is not supported: the server takes "
                                            "\"chunked\" alone, or a Content-Length.")
                                 .arg(shown(*transferEncoding)));
        }
    }
    return std::nullopt;
}

} // namespace warren::http
