#include "server/api/HttpErrors.h"

namespace warren::server {

http::HttpResponse errorResponse(const Error& error) {
    const QString message = QString::fromStdString(error.message);
    switch (error.code) {
    case ErrorCode::InvalidArgument:
        return http::HttpResponse::error(400, "invalid_request", message);
    case ErrorCode::NotFound:
        return http::HttpResponse::error(404, "not_found", message);
    case ErrorCode::Unsupported:
        return http::HttpResponse::error(501, "unsupported", message);
    case ErrorCode::Unavailable:
        return http::HttpResponse::error(503, "unavailable", message).withHeader("Retry-After", "5");
    case ErrorCode::System:
        break;
    }
    return http::HttpResponse::error(500, "internal", message);
}

http::HttpResponse notFound(const std::string& what) {
    return http::HttpResponse::error(404, "not_found", QString::fromStdString(what + " not found"));
}

http::HttpResponse removed(const Error& error) {
    return http::HttpResponse::error(410, "removed", QString::fromStdString(error.message));
}

http::HttpResponse noContent() {
    http::HttpResponse response;
    response.status = 204;
    return response;
}

http::HttpResponse jsonResponse(unsigned status, const nlohmann::json& body) {
    http::HttpResponse response;
    response.status = status;
    response.body =
        QByteArray::fromStdString(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    response.withHeader("Content-Type", "application/json");
    return response;
}

} // namespace warren::server
