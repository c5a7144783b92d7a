#pragma once
// A task as its owner reaches it: every /v1/tasks/{id}... route looks the id up as the caller's, and
// another user's task answers 404 exactly as one that does not exist, before any handler sees it.

#include "app/store/StoreTypes.h"
#include "common/Result.h"
#include "server/accounts/AccountTypes.h"
#include "server/api/Authentication.h"
#include "server/http/Router.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::server {

struct ServerParts;

struct Owned {
    control::TaskRecord task;
    std::optional<std::string> uploadId;
};

// The caller's task; nullopt for another user's id and for one that does not exist alike.
Result<std::optional<Owned>> ownedTask(ServerParts& parts, const accounts::Account& caller,
                                       const std::string& id);

// The task as its owner sees it: the upload it started from as its workspace and the provider it asked for
// (not the server's paths).
control::TaskRecord ownerView(control::TaskRecord task, const std::optional<std::string>& uploadId);
// ownerView in the API's shape (wire::taskToJson).
nlohmann::json taskJson(const control::TaskRecord& task, const std::optional<std::string>& uploadId);

// A path parameter ("{id}") of the request.
std::string pathParameter(const http::HttpRequest& request, const char* name);

using OwnedTaskHandler =
    std::function<void(const accounts::Account&, const Owned&, const http::HttpRequest&, http::HttpReply)>;

// An authenticated route whose pattern has {id}: the handler runs only with the caller's task.
void addOwnedTaskRoute(http::Router& router, ServerParts& parts, const char* method, const char* pattern,
                       OwnedTaskHandler handler);

} // namespace warren::server
