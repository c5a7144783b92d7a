#include "server/api/TasksApi.h"

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/control/ControlPlane.h"
#include "app/git/WorkspacePatch.h"
#include "app/metrics/EngineMetrics.h"
#include "app/providers/ProviderChoice.h"
#include "app/store/Store.h"
#include "app/tasks/AgentCli.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskManager.h"
#include "app/tasks/TaskMove.h"
#include "app/tasks/TaskReply.h"
#include "app/tasks/TaskRetention.h"
#include "app/wire/ArtifactList.h"
#include "app/wire/OwnerAnswers.h"
#include "app/wire/TaskAnswer.h"
#include "common/FileBeneath.h"
#include "common/FileText.h"
#include "common/JsonFields.h"
#include "common/RemoveTree.h"
#include "common/TreeSize.h"
#include "server/accounts/AccountStore.h"
#include "server/api/AnswerRequest.h"
#include "server/api/Authentication.h"
#include "server/api/DiskUse.h"
#include "server/api/EventStreams.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/ProviderEndpoints.h"
#include "server/api/Quotas.h"
#include "server/api/ServerParts.h"
#include "server/api/TaskQuestions.h"
#include "server/api/TaskRequest.h"
#include "server/api/TaskWebhooks.h"
#include "server/api/UploadsApi.h"
#include "server/replicas/TaskLeases.h"
#include "server/uploads/ArtifactFile.h"
#include "server/uploads/WorkspaceCopy.h"
#include "server/work/DiskWork.h"

#include <QTimer>
#include <algorithm>
#include <filesystem>
#include <fstream>

namespace warren::server {

namespace fs = std::filesystem;
using accounts::Account;
using http::HttpReply;
using http::HttpRequest;
using http::HttpResponse;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxArtifactBytes = 64u << 20;

std::string memoryPrefix(const Account& caller) {
    // One assistant per user for now: the prefix has room for more (DESIGN.md §8).
    return "user-" + std::to_string(caller.userId) + "/assistant-main";
}

control::TaskSpec specFor(ServerParts& parts, const Account& caller, const wire::TaskRequest& request,
                          const Admission& admission, const std::string& id) {
    control::TaskSpec spec;
    spec.provider = request.script ? control::ProviderChoice::scripted(parts.paths.script(id)).toString()
                                   : (request.provider.empty() ? parts.options.provider : request.provider);
    spec.model = request.model.empty() ? parts.options.model : request.model;
    spec.presets = request.presets;
    // The server's, over anything a preset says: memories live in its database, under the caller's prefix.
    spec.overrides = request.settings;
    spec.overrides["memory_prefix"] = memoryPrefix(caller);
    spec.overrides["memory_backend"] = "host";
    spec.network = request.network;
    spec.approval = control::ApprovalMode::Ask; // the owner answers through /approvals/{id}
    spec.tokenBudget = admission.tokenBudget;
    spec.backend = parts.options.backend;
    if (!parts.options.image.empty())
        spec.image = parts.options.image;
    spec.limits = admission.limits;
    spec.attended = request.attended;
    spec.agent = request.agent; // the operator's install (warrend serve --agent-cli), never a path of the caller's
    spec.secrets = request.secrets; // the caller's own, looked up by the task's owner at launch
    return spec;
}

// A task being created: what the event loop decided before its workspace is made on a worker, and needs
// after.
struct Creation {
    Account caller;
    TaskRequest request;
    accounts::UploadOwnership upload;
    std::optional<accounts::UploadOwnership> history; // a moved task's (TaskRequest::moved)
    std::string id;
    std::optional<std::string> idempotencyKey;
    control::TaskSpec spec;
    bool waits = false; // over the concurrency quota, created held until WaitingTasks gives it a slot
};

// What the task would reach inside the server's host and networks without the operator's word: its
// allow-list's addresses and local names, its provider endpoint's (DESIGN.md §12). Names DNS resolves inside
// are refused again where the connection is made.
Status checkInside(const control::TaskSpec& spec, const ServeOptions& options) {
    auto network = control::parseTaskNetwork(spec.network);
    if (!network)
        return network.error();
    if (auto allowed = control::checkAllowListInside(*network, options.insideAccess()); !allowed)
        return allowed;
    if (control::ProviderChoice::parse(spec.provider).isScripted())
        return Ok{};
    auto provider = control::parseProviderSpec(spec.provider, spec.model);
    if (!provider)
        return provider.error();
    return checkProviderEndpoint(*provider, options.provider, options.insideAccess());
}

// Each secret the task names is one the caller or their tenant stored: a name of nobody's, or of another
// user's or tenant's, creates nothing (at launch the secrets are looked up by the task's owner again).
Status checkSecrets(ServerParts& parts, const Account& caller, const control::TaskSpec& spec) {
    if (spec.secrets.empty())
        return Ok{};
    auto stored = parts.accounts.hostSecrets(caller.userId);
    if (!stored)
        return stored.error();
    for (const std::string& name : spec.secrets) {
        const bool found = std::any_of(stored->begin(), stored->end(),
                                       [&](const accounts::HostSecretInfo& info) { return info.name == name; });
        if (!found)
            return makeError(ErrorCode::InvalidArgument, "secrets: no secret " + name + " of yours or your "
                                                             "tenant's; store it with PUT /v1/me/secrets/" + name);
    }
    return Ok{};
}

// A CLI agent runs from the operator's install only (`serve --agent-cli`, else warrend's PATH); a caller
// who asks for one the server lacks is told so without the server's paths.
Status checkServerAgent(const control::TaskSpec& spec, const ServeOptions& options) {
    if (auto speaks = control::checkAgentProvider(spec); !speaks)
        return speaks;
    if (control::taskCli(spec.agent, {}, options.agentClis, spec.backend))
        return Ok{};
    const std::string name(protocol::agentKindName(spec.agent));
    return makeError(ErrorCode::InvalidArgument, "this server does not offer " + name +
                                                     "; its operator installs it and starts warrend with "
                                                     "--agent-cli " + name + "=PATH");
}

// The task's workspace, copied from its upload's checked tree, and its inline script: the disk part of
// creating a task, on a worker. On failure what it made is removed.
Status makeWorkspace(const std::string& tree, const std::string& workspace, const std::string& scriptPath,
                     const std::optional<json>& script) {
    if (auto copied = uploads::copyWorkspace(tree, workspace, tar::UploadLimits{}); !copied)
        return copied.error();
    if (script) {
        std::ofstream file(scriptPath);
        file << script->dump();
        if (!file.flush()) {
            (void)files::removeTree(workspace);
            std::error_code ignored;
            fs::remove(scriptPath, ignored);
            return makeError(ErrorCode::System, "cannot write the task's script; is the server's disk full?");
        }
    }
    return Ok{};
}

// What a creation made on disk, removed (on a worker); returns why, for the caller to pass on.
Error undoWorkspace(const std::string& workspace, const std::string& scriptPath, const control::DataDir& data,
                    const std::string& id, Error why) {
    (void)files::removeTree(workspace);
    (void)files::removeTree(data.taskDir(id));
    std::error_code ignored;
    fs::remove(scriptPath, ignored);
    return why;
}

// A moved task's history, from its upload's tree (the caller's files: read beneath the tree, no link
// followed, nothing but regular files): its events, checked as an agent's are, and its checkpoint written
// as the task's own. Disk work: on a worker.
Result<std::vector<control::EventRow>> takeHistory(const std::string& tree, const control::DataDir& data,
                                                   const std::string& id, std::uint64_t maxBytes) {
    const auto read = [&](const char* name) -> Result<std::string> {
        BeneathRead file = readFileBeneath(tree, name, maxBytes);
        if (file.outcome != BeneathRead::Outcome::Read)
            return makeError(ErrorCode::InvalidArgument,
                             std::string("moved.history: the upload has no readable file ") + name +
                                 " (a regular file at its top)");
        return std::move(file.data);
    };
    auto events = read(control::kMovedEventsFile);
    if (!events)
        return events.error();
    auto checkpoint = read(control::kMovedCheckpointFile);
    if (!checkpoint)
        return checkpoint.error();
    auto history = control::readMovedHistory(*events, *checkpoint, id);
    if (!history)
        return makeError(ErrorCode::InvalidArgument, "moved.history: " + history.error().message);
    std::error_code error;
    fs::create_directories(data.stateDir(id), error);
    if (error)
        return makeError(ErrorCode::System, "cannot create the task's state directory: " + error.message());
    if (auto written = writeFileText(data.stateDir(id) + "/checkpoint.json", history->checkpoint, 0600);
        !written)
        return written.error();
    return std::move(history->events);
}

// A moved task, stored paused (or held), takes its history, a line saying where it came from and the
// server's limits: written in one transaction on a worker over a connection of its own (a long history
// would hold every other request on the event loop), then back here.
void takeMovedHistory(ServerParts& parts, const std::string& owner, const control::TaskRecord& task,
                      const wire::MoveOrigin& moved, std::vector<control::EventRow> history,
                      std::function<void(Status)> done) {
    const std::uint64_t step = history.empty() ? 0 : history.back().step;
    const auto now = protocol::toUnixMillis(std::chrono::system_clock::now());
    history.push_back(control::historyNote(
        history, task.id, step, "moved here from task " + moved.from + " of another control plane", now));
    // What the server clamped, as a new task's first event says it (its runs here never start at seq 1).
    if (auto spec = control::TaskSpec::fromText(task.spec); spec && spec->limits)
        history.push_back(control::historyEvent(history, task.id, step, protocol::event_type::kLimitsApplied,
                                                spec->limits->toJson(), now));
    parts.work.run<Status>(
        owner,
        [open = parts.openStore, history = std::move(history)]() -> Status {
            auto store = open();
            if (!store)
                return store.error();
            return (*store)->appendEvents(history);
        },
        std::move(done));
}

// Then it goes on as it was: a paused, interrupted or sleeping one runs from its checkpoint (a question it
// slept on is asked again here), one waiting for its user's reply waits here.
Result<control::TaskRecord> goOnMoved(ServerParts& parts, control::TaskRecord task,
                                      const wire::MoveOrigin& moved, bool held) {
    if (held)
        return task;
    if (moved.status == control::TaskStatus::Waiting) {
        (void)parts.quotas.release(task.id); // it holds no slot until its user replies
        task.status = control::TaskStatus::Waiting;
        if (auto updated = parts.store.updateTask(task); !updated)
            return updated.error();
        return task;
    }
    if (auto resumed = parts.manager.resume(task.id, {}); !resumed)
        return resumed.error();
    auto stored = parts.store.task(task.id);
    if (!stored)
        return stored.error();
    return stored->value_or(task);
}

void refuseCreation(ServerParts& parts, const Creation& creation, const HttpReply& reply, HttpResponse response) {
    if (creation.idempotencyKey)
        (void)parts.accounts.forgetIdempotencyKey(creation.caller.userId, *creation.idempotencyKey, creation.id);
    reply.send(std::move(response));
}

// The task made: its webhook, and the answer.
void created(ServerParts& parts, const Creation& creation, const control::TaskRecord& task,
             const HttpReply& reply) {
    parts.webhooks.taskEvent(task.id, wire::WebhookEvent::TaskCreated, task.status);
    reply.send(jsonResponse(201, taskJson(task, creation.upload.uploadId))
                   .withHeader("Location", QByteArray::fromStdString("/v1/tasks/" + task.id)));
}

// What a creation that will not finish made: its reservation here, its workspace and script on a worker.
void dropCreation(ServerParts& parts, const Account& caller, const std::string& id) {
    (void)parts.quotas.release(id);
    parts.work.runDetached(workOwner(caller),
                           [workspace = parts.paths.workspace(id), script = parts.paths.script(id),
                            data = control::DataDir{parts.paths.root},
                            id] { (void)undoWorkspace(workspace, script, data, id, Error{}); });
}

// After the workspace: recorded as the caller's, listed as waiting or submitted. A step that fails gives the
// reservation back and removes what was made (on a worker).
void finishCreation(ServerParts& parts, const Creation& creation, Status made,
                    std::vector<control::EventRow> history, const HttpReply& reply) {
    const std::string& id = creation.id;
    const auto undo = [&](const Error& error) {
        (void)parts.accounts.forgetWaitingTask(id);
        dropCreation(parts, creation.caller, id);
        refuseCreation(parts, creation, reply, errorResponse(error));
    };
    if (!made) {
        (void)parts.quotas.release(id);
        return refuseCreation(parts, creation, reply, errorResponse(made.error()));
    }
    if (auto recorded = parts.accounts.recordTask(creation.caller.userId, id, creation.upload.uploadId); !recorded)
        return undo(recorded.error());
    // Listed as waiting before it is stored as queued: a crash in between leaves a stale entry (dropped
    // by the next offer), never a queued task that would start on restart without a slot.
    if (creation.waits) {
        if (auto listed = parts.accounts.addWaitingTask(creation.caller.userId, id); !listed)
            return undo(listed.error());
    }
    const auto& moved = creation.request.body.moved;
    auto task =
        parts.manager.submit(creation.request.body.prompt, parts.paths.workspace(id), creation.spec, id,
                             creation.waits ? control::TaskManager::Start::Held
                             : moved        ? control::TaskManager::Start::Paused
                                            : control::TaskManager::Start::WhenFree);
    if (!task)
        return undo(task.error());
    if (!moved)
        return created(parts, creation, *task, reply);
    takeMovedHistory(parts, workOwner(creation.caller), *task, *moved, std::move(history),
                     [&parts, creation, task = *task, reply](Status taken) mutable {
                         if (!taken) { // a task without its history is none: failed, and the key free again
                             task.status = control::TaskStatus::Failed;
                             task.error = "its history could not be stored: " + taken.error().message +
                                          "; move it again";
                             (void)parts.store.updateTask(task);
                             (void)parts.quotas.release(task.id);
                             return refuseCreation(parts, creation, reply, errorResponse(taken.error()));
                         }
                         auto goesOn = goOnMoved(parts, task, *creation.request.body.moved, creation.waits);
                         if (!goesOn) // stored whole, it did not start: its owner resumes it
                             return reply.send(errorResponse(goesOn.error()));
                         created(parts, creation, *goesOn, reply);
                     });
}

// An Idempotency-Key that stands for no task yet, claimed by a replica of this machine that has died (killed
// between the claim and the task's record): this request takes it over for newId, and what the dead one left
// (its workspace, script and reservation) goes. False while the claimer may still be creating the task.
Result<bool> takeOverAbandonedKey(ServerParts& parts, const Account& caller, const std::string& key,
                                  const accounts::IdempotencyClaim& claim, const std::string& newId) {
    if (!replicaGone(claim.claimedBy))
        return false;
    auto taken =
        parts.accounts.takeOverIdempotencyKey(caller.userId, key, claim.taskId, newId, parts.replica);
    if (!taken || !*taken)
        return taken;
    dropCreation(parts, caller, claim.taskId);
    return true;
}

// Everything the task needs, in an order that leaves nothing behind when a step fails: the quota's
// reservation and the spec here, the workspace on a worker, the records back here. A client that leaves
// meanwhile loses nothing: the task is created all the same (and its Idempotency-Key finds it).
void createTask(ServerParts& parts, Creation creation, HttpReply reply) {
    auto admission = parts.quotas.admit(creation.caller, creation.request, creation.id);
    if (!admission)
        return refuseCreation(parts, creation, reply, errorResponse(admission.error()));
    // Over the concurrency quota, a task that asked to queue is created held, and waits for a slot
    // (WaitingTasks); any other refusal (the month's tokens) creates nothing.
    creation.waits = admission->refused && creation.request.body.queue &&
                     admission->refused->limit == accounts::LimitName::MaxConcurrent;
    if (admission->refused && !creation.waits)
        return refuseCreation(parts, creation, reply, overQuotaResponse(parts.metrics, *admission->refused));
    creation.spec = specFor(parts, creation.caller, creation.request.body, *admission, creation.id);
    Status valid = control::validateSpec(creation.spec);
    if (valid)
        valid = checkInside(creation.spec, parts.options);
    if (valid)
        valid = checkServerAgent(creation.spec, parts.options);
    if (valid)
        valid = checkSecrets(parts, creation.caller, creation.spec);
    if (!valid) {
        (void)parts.quotas.release(creation.id);
        return refuseCreation(parts, creation, reply, errorResponse(valid.error()));
    }
    auto disk = diskBudget(parts, creation.caller);
    if (!disk) {
        (void)parts.quotas.release(creation.id);
        return refuseCreation(parts, creation, reply, errorResponse(disk.error()));
    }
    const std::string owner = workOwner(creation.caller);
    auto shared = std::make_shared<Creation>(std::move(creation));
    // The workspace is a copy of the upload's tree: what it adds to the owner's disk is that tree.
    struct Made {
        Status made = Ok{};
        std::optional<accounts::OverQuota> overDisk;
        std::vector<control::EventRow> history; // a moved task's events, its checkpoint written
    };
    parts.work.run<Made>(
        owner,
        [tree = parts.paths.uploadTree(shared->upload.uploadId),
         workspace = parts.paths.workspace(shared->id), scriptPath = parts.paths.script(shared->id),
         script = shared->request.body.script, disk = std::move(*disk),
         history = shared->history ? parts.paths.uploadTree(shared->history->uploadId) : std::string(),
         data = control::DataDir{parts.paths.root}, id = shared->id,
         maxBytes = parts.options.maxUploadBytes]() -> Made {
            if (disk) {
                auto adding = files::treeBytes(tree);
                auto over = adding ? checkDisk(*disk, *adding)
                                   : Result<std::optional<accounts::OverQuota>>(adding.error());
                if (!over)
                    return {over.error(), std::nullopt, {}};
                if (*over)
                    return {Ok{}, *over, {}};
            }
            Made made{makeWorkspace(tree, workspace, scriptPath, script), std::nullopt, {}};
            if (made.made && !history.empty()) {
                auto moved = takeHistory(history, data, id, maxBytes);
                if (moved)
                    made.history = std::move(*moved);
                else
                    made.made = undoWorkspace(workspace, scriptPath, data, id, moved.error());
            }
            return made;
        },
        [&parts, shared, reply](Made made) {
            if (made.overDisk) {
                (void)parts.quotas.release(shared->id);
                return refuseCreation(parts, *shared, reply,
                                      overQuotaResponse(parts.metrics, *made.overDisk));
            }
            finishCreation(parts, *shared, std::move(made.made), std::move(made.history), reply);
        });
}

// The request's body as JSON, or the 400 that says why it is not.
Result<json> bodyJson(const HttpRequest& request) {
    auto body = json_fields::parseJson(request.body.toStdString());
    if (!body)
        return makeError(ErrorCode::InvalidArgument, "the request body is not JSON: " + body.error().message);
    return body;
}

void create(ServerParts& parts, const Account& caller, const HttpRequest& request, HttpReply reply) {
    auto body = bodyJson(request);
    if (!body)
        return reply.send(errorResponse(body.error()));
    auto parsed = parseTaskRequest(*body);
    if (!parsed)
        return reply.send(errorResponse(parsed.error()));
    auto upload = parts.accounts.upload(caller.userId, parsed->body.workspace);
    if (!upload)
        return reply.send(errorResponse(upload.error()));
    if (!*upload)
        return reply.send(notFound("upload " + parsed->body.workspace));
    std::optional<accounts::UploadOwnership> history;
    if (parsed->body.moved) {
        auto found = parts.accounts.upload(caller.userId, parsed->body.moved->history);
        if (!found)
            return reply.send(errorResponse(found.error()));
        if (!*found)
            return reply.send(notFound("upload " + parsed->body.moved->history));
        history = **found;
    }

    const std::string id = control::newTaskId();
    std::optional<std::string> idempotencyKey;
    if (const auto header = request.header("Idempotency-Key")) {
        idempotencyKey = header->toStdString();
        if (auto valid = accounts::checkIdempotencyKey(*idempotencyKey); !valid)
            return reply.send(errorResponse(valid.error()));
        auto claim = parts.accounts.claimIdempotencyKey(caller.userId, *idempotencyKey,
                                                        request.body.toStdString(), id, parts.replica);
        if (!claim)
            return reply.send(errorResponse(claim.error()));
        if (claim->outcome == accounts::IdempotencyClaim::Outcome::Conflict)
            return reply.send(HttpResponse::error(
                422, "idempotency_conflict",
                "this Idempotency-Key was used for another request; use a new key for a new task"));
        if (claim->outcome == accounts::IdempotencyClaim::Outcome::Replay) {
            auto earlier = ownedTask(parts, caller, claim->taskId);
            if (!earlier)
                return reply.send(errorResponse(earlier.error()));
            if (*earlier)
                return reply.send(jsonResponse(200, taskJson((*earlier)->task, (*earlier)->uploadId)));
            auto taken = takeOverAbandonedKey(parts, caller, *idempotencyKey, *claim, id);
            if (!taken)
                return reply.send(errorResponse(taken.error()));
            if (!*taken)
                return reply.send(HttpResponse::error(409, "in_progress",
                                                      "the first request with this "
                                                      "Idempotency-Key is still being handled"));
        }
    }
    createTask(
        parts,
        Creation{caller, std::move(*parsed), **upload, std::move(history), id, idempotencyKey, {}, false},
        std::move(reply));
}

void list(ServerParts& parts, const Account& caller, HttpReply reply) {
    auto ids = parts.accounts.taskIds(caller.userId);
    if (!ids)
        return reply.send(errorResponse(ids.error()));
    std::vector<control::TaskRecord> tasks;
    for (const auto& id : *ids) {
        auto owned = ownedTask(parts, caller, id);
        if (!owned)
            return reply.send(errorResponse(owned.error()));
        if (*owned)
            tasks.push_back(ownerView((*owned)->task, (*owned)->uploadId));
    }
    reply.send(jsonResponse(200, wire::tasksToJson(tasks)));
}

void resume(ServerParts& parts, const Account& caller, const Owned& owned, HttpReply reply) {
    const std::string& id = owned.task.id;
    if (parts.manager.isActive(id))
        return reply.send(HttpResponse::error(409, "conflict", "the task is running"));
    auto refused = parts.quotas.readmit(caller, id);
    if (!refused)
        return reply.send(errorResponse(refused.error()));
    if (*refused)
        return reply.send(overQuotaResponse(parts.metrics, **refused));
    if (auto resumed = parts.manager.resume(id, {}); !resumed) {
        (void)parts.quotas.release(id);
        return reply.send(errorResponse(resumed.error()));
    }
    auto task = parts.store.task(id);
    reply.send(task && *task
                   ? jsonResponse(202, taskJson(**task, owned.uploadId))
                   : errorResponse(task ? makeError(ErrorCode::NotFound, "task " + id) : task.error()));
}

// The owner's message to a task whose run ended: it continues from its checkpoint (TaskManager::reply), in
// a slot of the owner's quota as a resume takes one.
void replyTo(ServerParts& parts, const Account& caller, const Owned& owned, const HttpRequest& request,
             HttpReply reply) {
    auto body = bodyJson(request);
    if (!body)
        return reply.send(errorResponse(body.error()));
    auto parsed = parseReplyRequest(*body);
    if (!parsed)
        return reply.send(errorResponse(parsed.error()));
    const std::string& message = *parsed;
    const std::string& id = owned.task.id;
    if (parts.manager.isActive(id) || owned.task.status == control::TaskStatus::Queued ||
        owned.task.status == control::TaskStatus::Running)
        return reply.send(HttpResponse::error(409, "conflict",
                                              QString::fromStdString("task " + id + " is running; wait for it or "
                                                                                    "cancel it, then reply")));
    auto refused = parts.quotas.readmit(caller, id);
    if (!refused)
        return reply.send(errorResponse(refused.error()));
    if (*refused)
        return reply.send(overQuotaResponse(parts.metrics, **refused));
    if (auto replied = parts.manager.reply(id, message); !replied) {
        (void)parts.quotas.release(id);
        return reply.send(errorResponse(replied.error()));
    }
    auto task = parts.store.task(id);
    reply.send(task && *task
                   ? jsonResponse(202, taskJson(**task, owned.uploadId))
                   : errorResponse(task ? makeError(ErrorCode::NotFound, "task " + id) : task.error()));
}

HttpResponse accepted(const Answer& answer) {
    return jsonResponse(202, {{"task", answer.taskId}, {"approval", answer.callId}, {"approved", answer.approved}});
}

HttpResponse noQuestion(const std::string& taskId, const std::string& callId) {
    return notFound("a question " + callId + " waiting in task " + taskId);
}

// A task another replica runs: only that one knows its questions and can stop it (ReplicaRequests). yes: the
// response when it did, no: when it did not; its refusal and its silence are errors.
void askRunner(ServerParts& parts, const std::string& taskId, const ReplicaRequest& request, HttpReply reply,
               std::function<HttpResponse()> yes, std::function<HttpResponse()> no) {
    parts.requests.ask(taskId, request, [reply, yes, no](Result<ReplicaAnswer> answer) {
        if (!answer)
            return reply.send(errorResponse(answer.error()));
        if (!answer->error.empty())
            return reply.send(errorResponse(makeError(ErrorCode::InvalidArgument, answer->error)));
        reply.send(answer->done ? yes() : no());
    });
}

// Whether the task waits for its owner's answer to callId: 200 {"id", "waiting": true} as soon as it does
// (TaskQuestions.h), else 404 once it has not asked in time (a rule decided the call, it was answered, or
// the task is not running).
void question(ServerParts& parts, const Owned& owned, const HttpRequest& request, HttpReply reply) {
    const std::string callId = pathParameter(request, "call");
    const std::string taskId = owned.task.id;
    const auto waiting = [callId] { return jsonResponse(200, {{"id", callId}, {"waiting", true}}); };
    const auto notWaiting = [taskId, callId] { return noQuestion(taskId, callId); };
    if (parts.manager.runsElsewhere(taskId))
        return askRunner(parts, taskId, {ReplicaRequest::Kind::Waiting, callId, false, {}, false, {}},
                         std::move(reply), waiting, notWaiting);
    whenWaiting(parts.manager, taskId, callId,
                [reply, waiting, notWaiting](bool yes) { reply.send(yes ? waiting() : notWaiting()); });
}

// {"approved": bool, "note"?: string, "always"?: bool} for a question the task is waiting on. A task asleep
// (or paused) while its question waited wakes with the answer, in a slot of its owner's quota as a resume
// takes one. A task another replica runs gets it there.
void answer(ServerParts& parts, const Account& caller, const Owned& owned, const HttpRequest& request,
            HttpReply reply) {
    const std::string callId = pathParameter(request, "call");
    auto body = bodyJson(request);
    if (!body)
        return reply.send(errorResponse(body.error()));
    auto parsed = wire::ApprovalAnswer::fromJson(*body);
    if (!parsed)
        return reply.send(errorResponse(parsed.error()));
    const Answer given{owned.task.id, callId, parsed->approved, parsed->note, parsed->always};
    if (parts.manager.runsElsewhere(given.taskId))
        return askRunner(parts, given.taskId,
                         {ReplicaRequest::Kind::Answer, callId, given.approved, given.note, given.always, {}},
                         std::move(reply), [given] { return accepted(given); },
                         [given] { return noQuestion(given.taskId, given.callId); });
    if (!parts.manager.isActive(owned.task.id) && parts.manager.isWaiting(owned.task.id, callId)) {
        auto refused = parts.quotas.readmit(caller, owned.task.id);
        if (!refused)
            return reply.send(errorResponse(refused.error()));
        if (*refused)
            return reply.send(overQuotaResponse(parts.metrics, **refused));
        if (!given.deliver(parts.manager)) {
            (void)parts.quotas.release(owned.task.id);
            return reply.send(noQuestion(given.taskId, callId));
        }
        return reply.send(accepted(given));
    }
    deliverWhenAsked(parts.manager, given,
                     [reply, given](bool delivered) {
                         reply.send(delivered ? accepted(given) : noQuestion(given.taskId, given.callId));
                     });
}

// Whether anyone still waits for this answer: read-only work for a client that has gone is not started.
std::function<bool()> stillWanted(const HttpReply& reply) {
    return [reply] { return !reply.answered(); };
}

// git diff of a large workspace takes a while: it runs on a worker (touching only the two trees), and the
// answer is sent from the event loop, which meanwhile serves everyone else.
void patch(ServerParts& parts, const Account& caller, const Owned& owned, HttpReply reply) {
    if (auto kept = control::checkPartsKept(owned.task, "give its patch"); !kept)
        return reply.send(removed(kept.error()));
    if (!owned.uploadId)
        return reply.send(notFound("the upload of task " + owned.task.id));
    using Diff = Result<std::string>;
    parts.work.run<Diff>(
        workOwner(caller),
        [before = parts.paths.uploadTree(*owned.uploadId), after = parts.paths.workspace(owned.task.id)] {
            return git::workspacePatch(before, after);
        },
        [reply](Diff diff) {
            if (!diff)
                return reply.send(errorResponse(diff.error()));
            HttpResponse response;
            response.body = QByteArray::fromStdString(*diff);
            response.withHeader("Content-Type", "text/x-diff");
            reply.send(std::move(response));
        },
        stillWanted(reply));
}

HttpResponse artifactResponse(uploads::ArtifactRead read) {
    using Outcome = uploads::ArtifactRead::Outcome;
    const QString message = QString::fromStdString(read.message);
    switch (read.outcome) {
    case Outcome::Read: {
        HttpResponse response;
        response.body = QByteArray::fromStdString(read.data);
        response.withHeader("Content-Type", "application/octet-stream");
        return response;
    }
    case Outcome::Missing:
        return HttpResponse::error(404, "not_found", message);
    case Outcome::NotRegular: // a FIFO, a device, a socket, a link: the task's doing, refused unread
        return HttpResponse::error(422, "not_a_regular_file", message);
    case Outcome::TooLarge:
        return HttpResponse::error(413, "artifact_too_large", message);
    case Outcome::Failed:
        break;
    }
    return HttpResponse::error(500, "internal", message);
}

void artifacts(ServerParts& parts, const Account& caller, const Owned& owned, const HttpRequest& request,
               HttpReply reply) {
    auto listed = parts.store.artifacts(owned.task.id);
    if (!listed)
        return reply.send(errorResponse(listed.error()));
    const std::string name = pathParameter(request, "name");
    if (name.empty()) {
        return reply.send(jsonResponse(200, wire::artifactsToJson(*listed)));
    }
    // Only what the task's record lists, so no name reaches the file system unchecked.
    const bool known =
        std::any_of(listed->begin(), listed->end(), [&](const auto& a) { return a.path == name; });
    if (!known)
        return reply.send(notFound("artifact " + name));
    if (auto kept = control::checkPartsKept(owned.task, "give its artifact " + name); !kept)
        return reply.send(removed(kept.error()));
    parts.work.run<uploads::ArtifactRead>(
        workOwner(caller),
        [output = parts.paths.root + "/tasks/" + owned.task.id + "/output", name] {
            return uploads::readArtifact(output, name, kMaxArtifactBytes);
        },
        [reply](uploads::ArtifactRead read) { reply.send(artifactResponse(std::move(read))); },
        stillWanted(reply));
}

} // namespace

void addTaskRoutes(http::Router& router, ServerParts& parts) {
    auto& accounts = parts.accounts;
    const auto route = [&](const char* method, const char* pattern, CallerHandler handler) {
        addCallerRoute(router, accounts, method, pattern, std::move(handler));
    };
    const auto taskRoute = [&](const char* method, const char* pattern, OwnedTaskHandler handler) {
        addOwnedTaskRoute(router, parts, method, pattern, std::move(handler));
    };
    route("POST", "/v1/tasks", [&parts](const Account& caller, const HttpRequest& request, HttpReply reply) {
        create(parts, caller, request, std::move(reply));
    });
    route("GET", "/v1/tasks", [&parts](const Account& caller, const HttpRequest&, HttpReply reply) {
        list(parts, caller, std::move(reply));
    });
    taskRoute("GET", "/v1/tasks/{id}",
              [](const Account&, const Owned& owned, const HttpRequest&, HttpReply reply) {
                  reply.send(jsonResponse(200, taskJson(owned.task, owned.uploadId)));
              });
    taskRoute("POST", "/v1/tasks/{id}/cancel",
              [&parts](const Account&, const Owned& owned, const HttpRequest&, HttpReply reply) {
                  const auto taken = [id = owned.task.id] { return jsonResponse(202, {{"id", id}}); };
                  if (parts.manager.runsElsewhere(owned.task.id))
                      return askRunner(parts, owned.task.id,
                                       {ReplicaRequest::Kind::Cancel, {}, false, {}, false, "cancelled by its owner"},
                                       std::move(reply), taken, taken);
                  if (auto cancelled = parts.manager.cancel(owned.task.id, "cancelled by its owner");
                      !cancelled)
                      return reply.send(errorResponse(cancelled.error()));
                  if (!parts.manager.isActive(owned.task.id)) { // it never ran: no run ends to say so
                      (void)parts.accounts.forgetWaitingTask(owned.task.id);
                      parts.streams.taskFinished(owned.task.id);
                  }
                  reply.send(jsonResponse(202, {{"id", owned.task.id}}));
              });
    taskRoute("POST", "/v1/tasks/{id}/resume",
              [&parts](const Account& caller, const Owned& owned, const HttpRequest&, HttpReply reply) {
                  resume(parts, caller, owned, std::move(reply));
              });
    taskRoute("POST", "/v1/tasks/{id}/reply",
              [&parts](const Account& caller, const Owned& owned, const HttpRequest& request, HttpReply reply) {
                  replyTo(parts, caller, owned, request, std::move(reply));
              });
    taskRoute("GET", "/v1/tasks/{id}/approvals/{call}",
              [&parts](const Account&, const Owned& owned, const HttpRequest& request, HttpReply reply) {
                  question(parts, owned, request, std::move(reply));
              });
    taskRoute("POST", "/v1/tasks/{id}/approvals/{call}",
              [&parts](const Account& caller, const Owned& owned, const HttpRequest& request, HttpReply reply) {
                  answer(parts, caller, owned, request, std::move(reply));
              });
    taskRoute("GET", "/v1/tasks/{id}/patch",
              [&parts](const Account& caller, const Owned& owned, const HttpRequest&, HttpReply reply) {
                  patch(parts, caller, owned, std::move(reply));
              });
    for (const char* pattern : {"/v1/tasks/{id}/artifacts", "/v1/tasks/{id}/artifacts/{name}"})
        taskRoute("GET", pattern,
                  [&parts](const Account& caller, const Owned& owned, const HttpRequest& request,
                           HttpReply reply) { artifacts(parts, caller, owned, request, std::move(reply)); });
}

} // namespace warren::server
