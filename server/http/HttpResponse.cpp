#include "server/http/HttpResponse.h"

#include <QJsonObject>

namespace warren::http {

HttpResponse HttpResponse::json(unsigned status, const QJsonDocument& document) {
    HttpResponse response;
    response.status = status;
    response.body = document.toJson(QJsonDocument::Compact);
    response.withHeader("Content-Type", "application/json");
    return response;
}

HttpResponse HttpResponse::error(unsigned status, const QString& code, const QString& message) {
    const QJsonObject error{{"code", code}, {"message", message}};
    return json(status, QJsonDocument(QJsonObject{{"error", error}}));
}

} // namespace warren::http
