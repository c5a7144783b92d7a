#pragma once
// An error value as the HTTP answer a client gets: the status its code means and the JSON error shape
// ({"error":{"code","message"}}), the message being the one a person can act on. Pure.

#include "common/Result.h"
#include "server/http/HttpResponse.h"

#include <nlohmann/json.hpp>

namespace warren::server {

// InvalidArgument 400 invalid_request, NotFound 404 not_found, Unsupported 501 unsupported,
// Unavailable 503 unavailable (with Retry-After: the database is restarting), System 500 internal.
http::HttpResponse errorResponse(const Error& error);
http::HttpResponse notFound(const std::string& what); // 404: also what another user's id answers
// 410 "removed": what the task's retention period removed (checkPartsKept's error says when and what is
// left).
http::HttpResponse removed(const Error& error);
// A JSON document (nlohmann) as the response body.
http::HttpResponse jsonResponse(unsigned status, const nlohmann::json& body);
http::HttpResponse noContent(); // 204: done, nothing to say

} // namespace warren::server
