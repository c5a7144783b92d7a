#pragma once
// One HTTP request as a handler sees it: what the client asked for, already parsed and decoded, and
// either its body or the temporary file the body was streamed to (routes with RouteOptions::toFile).

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QString>
#include <optional>
#include <utility>

namespace warren::http {

struct HttpRequest {
    QByteArray method;             // as sent: "GET", "POST", ...
    QString path;                  // percent-decoded, without the query (the router matched the raw segments)
    QHash<QString, QString> query; // decoded; a repeated name keeps its last value
    QHash<QString, QString> pathParameters;           // {name} → the segment it matched
    QList<std::pair<QByteArray, QByteArray>> headers; // in the order they came
    QByteArray body;                                  // empty when the body went to bodyFile
    QString bodyFile;    // set for toFile routes; removed after the exchange unless the handler moved it
    qint64 bodySize = 0; // bytes received, in body or in bodyFile
    QHostAddress peer;

    // The first header of that name (names compare case-insensitively, as RFC 9110 says), or nothing.
    std::optional<QByteArray> header(QByteArrayView name) const {
        for (const auto& [key, value] : headers) {
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        }
        return std::nullopt;
    }
};

} // namespace warren::http
