#pragma once
// warrend's answers read into the records the faces already know, and a TaskSpec written as the body of
// POST /v1/tasks: the client's side of the bodies app/wire defines, where it needs more than the body.
// Pure. Every answer is read as bytes from a server that may not be a warrend, or not an honest one: an
// answer of another shape than warrend's is an error (or reads as nothing), never an exception or a crash
// (tests/fuzz/fuzz_remote_answers).

#include "app/store/StoreTypes.h"
#include "app/tasks/TaskSpec.h"
#include "app/wire/ArtifactList.h"
#include "app/wire/EventsPage.h"
#include "app/wire/TaskAnswer.h"
#include "app/wire/TaskRequest.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::remote {

// A task as GET /v1/tasks/{id} answers it (its workspace is the upload's id on the server); GET /v1/tasks's
// list; the artifacts of GET /v1/tasks/{id}/artifacts.
using wire::artifactsFromJson;
using wire::taskFromJson;
using wire::tasksFromJson;

// The body of POST /v1/tasks. script: a scripted model's {"turns": [...]} (inline, DESIGN §9), else null.
// The server decides the sandbox (backend, image) and asks its owner for every approval no rule decides,
// so neither is sent; the spec's timeout is the sandbox's timeout_sec limit, which the server clamps to
// the owner's quota.
// moved: where a moved task comes from (`warren move`).
nlohmann::json taskRequestJson(const std::string& prompt, const std::string& uploadId,
                               const control::TaskSpec& spec, const nlohmann::json& script,
                               std::optional<wire::MoveOrigin> moved = std::nullopt);

// The approval an approval_requested event asks for, as approvalNeeded carries it; nullopt for any other
// event or one that does not read.
std::optional<control::ApprovalRecord> approvalFromEvent(const std::string& taskId, const nlohmann::json& event);

// A page of GET /v1/tasks/{id}/events, an error naming the task when it does not read.
using EventsPage = wire::EventsPage;
Result<EventsPage> eventsPageFromJson(const std::string& taskId, const nlohmann::json& answer);

// One event of the live stream (an SSE event's data): the event, when it is a JSON object with its seq;
// nullopt for anything else, which the stream skips (its seq cursor keeps it honest). JSON nesting deeper
// than json_fields::kMaxJsonDepth is not read.
std::optional<nlohmann::json> eventFromStreamData(std::string_view data);

// Whether GET /v1/me/provider-keys lists keyName.
bool listsProviderKey(const nlohmann::json& answer, const std::string& keyName);

} // namespace warren::remote
