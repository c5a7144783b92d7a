#include "server/api/TaskMoveApi.h"

#include "agent_core/protocol/Timestamp.h"
#include "app/store/Store.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskManager.h"
#include "app/tasks/TaskMove.h"
#include "app/tasks/TaskSpec.h"
#include "app/wire/TaskMoveOut.h"
#include "common/FileText.h"
#include "common/JsonFields.h"
#include "server/accounts/AccountStore.h"
#include "server/api/EventStreams.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/Quotas.h"
#include "server/api/ServerParts.h"
#include "server/api/UploadsApi.h"
#include "server/work/DiskWork.h"

#include <filesystem>

namespace warren::server {

using accounts::Account;
using http::HttpReply;
using http::HttpRequest;
using http::HttpResponse;
using nlohmann::json;

namespace {

constexpr const char* kMovedFromFile = "moved-from"; // what the task was before it went home

// The task marked moved home: what it was kept first (a crash after it leaves the task as it was, asked
// again), then the record, then the line in its events.
Status markMovedHome(ServerParts& parts, control::TaskRecord task) {
    const control::DataDir data{parts.paths.root};
    if (auto kept = data.keepTaskFile(task.id, kMovedFromFile, control::taskStatusName(task.status)); !kept)
        return kept;
    task.status = control::TaskStatus::Moved;
    task.movedTo = wire::kMoveHome;
    task.movedAs = task.id;
    task.finishReason = "moved";
    task.finishedAt = protocol::formatTimestamp(std::chrono::system_clock::now());
    if (auto updated = parts.store.updateTask(task); !updated)
        return updated;
    auto last = parts.store.eventsBefore(task.id, 0, 1);
    if (!last)
        return last.error();
    const std::uint64_t step = last->empty() ? 0 : last->back().step;
    return parts.store.appendEvents(
        {control::historyNote(*last, task.id, step, "moved to its owner's machine; it goes on there",
                              protocol::toUnixMillis(std::chrono::system_clock::now()))});
}

// Why the task cannot go home now, or Ok.
Status checkLeaving(ServerParts& parts, const control::TaskRecord& task) {
    if (parts.manager.isActive(task.id) || parts.manager.runsElsewhere(task.id))
        return makeError(ErrorCode::InvalidArgument,
                         "task " + task.id +
                             " is running; it moves when it waits for you, sleeps or is stopped");
    auto spec = control::TaskSpec::fromText(task.spec);
    if (!spec)
        return spec.error();
    std::error_code error;
    const bool checkpoint = std::filesystem::exists(
        control::DataDir{parts.paths.root}.stateDir(task.id) + "/checkpoint.json", error);
    if (auto movable = control::checkMovable(task, *spec, checkpoint); !movable)
        return movable;
    auto claimed = parts.manager.claim(task.id); // no other replica takes it up meanwhile
    if (!claimed)
        return claimed.error();
    if (!*claimed)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + task.id + " is taken up by another replica; try again");
    return Ok{};
}

void moveHome(ServerParts& parts, const Account& caller, const Owned& owned, const HttpRequest& request,
              HttpReply reply) {
    auto body = json_fields::parseJson(request.body.toStdString());
    if (!body)
        return reply.send(errorResponse(
            makeError(ErrorCode::InvalidArgument, "the request body is not JSON: " + body.error().message)));
    if (auto valid = wire::checkMoveOutRequest(*body); !valid)
        return reply.send(errorResponse(valid.error()));
    control::TaskRecord task = owned.task;
    const bool again = task.status == control::TaskStatus::Moved && task.movedTo == wire::kMoveHome;
    if (!again) {
        if (auto leaving = checkLeaving(parts, task); !leaving)
            return reply.send(
                HttpResponse::error(409, "conflict", QString::fromStdString(leaving.error().message)));
        if (auto marked = markMovedHome(parts, task); !marked)
            return reply.send(errorResponse(marked.error()));
        (void)parts.quotas.release(task.id);
        (void)parts.accounts.forgetWaitingTask(task.id);
        parts.streams.taskFinished(task.id);
        auto stored = parts.store.task(task.id);
        if (!stored || !*stored)
            return reply.send(
                errorResponse(stored ? makeError(ErrorCode::NotFound, "task " + task.id) : stored.error()));
        task = std::move(**stored);
    }
    struct Read {
        Status status = Ok{};
        std::string was, checkpoint;
    };
    parts.work.run<Read>(
        workOwner(caller),
        [data = control::DataDir{parts.paths.root}, id = task.id]() -> Read {
            auto was = readFileText(data.taskFile(id, kMovedFromFile));
            if (!was)
                return {was.error(), {}, {}};
            auto checkpoint = readFileText(data.stateDir(id) + "/checkpoint.json");
            if (!checkpoint)
                return {checkpoint.error(), {}, {}};
            return {Ok{}, std::move(*was), std::move(*checkpoint)};
        },
        [task, upload = owned.uploadId, reply](Read read) {
            const auto was = control::taskStatusFromName(read.was);
            if (!read.status || !was)
                return reply.send(errorResponse(
                    read.status
                        ? makeError(ErrorCode::System, "the task's move home was not kept as it should be")
                        : read.status.error()));
            reply.send(
                jsonResponse(200, wire::moveOutAnswerJson(taskJson(task, upload), *was, read.checkpoint)));
        });
}

} // namespace

void addTaskMoveRoutes(http::Router& router, ServerParts& parts) {
    addOwnedTaskRoute(
        router, parts, "POST", "/v1/tasks/{id}/move",
        [&parts](const Account& caller, const Owned& owned, const HttpRequest& request, HttpReply reply) {
            moveHome(parts, caller, owned, request, std::move(reply));
        });
}

} // namespace warren::server
