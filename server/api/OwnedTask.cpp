#include "server/api/OwnedTask.h"

#include "app/providers/ProviderChoice.h"
#include "app/store/Store.h"
#include "app/wire/TaskAnswer.h"
#include "server/accounts/AccountStore.h"
#include "server/api/HttpErrors.h"
#include "server/api/ServerParts.h"

namespace warren::server {

using nlohmann::json;

Result<std::optional<Owned>> ownedTask(ServerParts& parts, const accounts::Account& caller,
                                       const std::string& id) {
    auto owned = parts.accounts.task(caller.userId, id);
    if (!owned)
        return owned.error();
    if (!*owned)
        return std::optional<Owned>();
    auto task = parts.store.task(id);
    if (!task)
        return task.error();
    if (!*task)
        return std::optional<Owned>();
    return std::optional<Owned>(Owned{**task, (*owned)->uploadId});
}

control::TaskRecord ownerView(control::TaskRecord task, const std::optional<std::string>& uploadId) {
    task.workspace = uploadId.value_or("");
    if (auto spec = json::parse(task.spec, nullptr, false); spec.is_object()) {
        if (control::ProviderChoice::parse(spec.value("provider", std::string())).isScripted()) {
            spec["provider"] = control::ProviderChoice::kScriptedName;
            task.spec = spec.dump();
        }
    }
    return task;
}

json taskJson(const control::TaskRecord& task, const std::optional<std::string>& uploadId) {
    return wire::taskToJson(ownerView(task, uploadId));
}

std::string pathParameter(const http::HttpRequest& request, const char* name) {
    return request.pathParameters.value(QString::fromLatin1(name)).toStdString();
}

void addOwnedTaskRoute(http::Router& router, ServerParts& parts, const char* method, const char* pattern,
                       OwnedTaskHandler handler) {
    router.add(method, QString::fromLatin1(pattern),
               authenticated(parts.accounts, [&parts, handler = std::move(handler)](
                                                 const accounts::Account& caller,
                                                 const http::HttpRequest& request, http::HttpReply reply) {
                   const std::string id = pathParameter(request, "id");
                   auto owned = ownedTask(parts, caller, id);
                   if (!owned)
                       return reply.send(errorResponse(owned.error()));
                   if (!*owned)
                       return reply.send(notFound("task " + id));
                   handler(caller, **owned, request, std::move(reply));
               }));
}

} // namespace warren::server
