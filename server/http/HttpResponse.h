#pragma once
// One complete HTTP response, and the two shapes warrend answers in: a JSON document, and the error every
// 4xx and 5xx carries, {"error":{"code","message"}} (DESIGN.md §8).

#include <QByteArray>
#include <QJsonDocument>
#include <QList>
#include <QString>
#include <utility>

namespace warren::http {

struct HttpResponse {
    unsigned status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body;

    HttpResponse& withHeader(QByteArray name, QByteArray value) {
        headers.append({std::move(name), std::move(value)});
        return *this;
    }

    static HttpResponse json(unsigned status, const QJsonDocument& document);
    // code is a stable word a client can switch on ("not_found"); message is for a person.
    static HttpResponse error(unsigned status, const QString& code, const QString& message);
};

} // namespace warren::http
