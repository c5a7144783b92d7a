#pragma once
// warrend's JSON read into the records the faces already know, and a TaskSpec written as the body of POST
// /v1/tasks. Pure: the server's task JSON is the one `warren show --json` prints (control::toJson), so a
// remote task is a TaskRecord like a local one, and a remote approval an ApprovalRecord.
//
// Every answer is read as bytes from a server that may not be a warrend, or not an honest one: an answer of
// another shape than warrend's is an error (or reads as nothing), never an exception or a crash
// (tests/fuzz/fuzz_remote_answers).

#include "app/store/StoreTypes.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::remote {

// A task as GET /v1/tasks/{id} answers it; its workspace is the upload's id on the server.
Result<control::TaskRecord> taskFromJson(const nlohmann::json& task);

// The body of POST /v1/tasks. script: a scripted model's {"turns": [...]} (inline, DESIGN §9), else null.
// The server decides the sandbox (backend, image) and asks its owner for every approval no rule decides,
// so neither is sent; the spec's timeout is the sandbox's timeout_sec limit, which the server clamps to
// the owner's quota.
nlohmann::json taskRequestJson(const std::string& prompt, const std::string& uploadId,
                               const control::TaskSpec& spec, const nlohmann::json& script);

// The approval an approval_requested event asks for, as approvalNeeded carries it; nullopt for any other
// event or one that does not read.
std::optional<control::ApprovalRecord> approvalFromEvent(const std::string& taskId, const nlohmann::json& event);

// The artifacts list of GET /v1/tasks/{id}/artifacts.
Result<std::vector<control::ArtifactRecord>> artifactsFromJson(const std::string& taskId,
                                                               const nlohmann::json& answer);

// GET /v1/tasks: {"tasks": [task, ...]}.
Result<std::vector<control::TaskRecord>> tasksFromJson(const nlohmann::json& answer);

// A page of GET /v1/tasks/{id}/events: its events, each an object with its seq (a whole number), and
// last_seq.
struct EventsPage {
    std::vector<nlohmann::json> events;
    std::uint64_t lastSeq = 0;
};
Result<EventsPage> eventsPageFromJson(const std::string& taskId, const nlohmann::json& answer);

// One event of the live stream (an SSE event's data): the event, when it is a JSON object with its seq;
// nullopt for anything else, which the stream skips (its seq cursor keeps it honest). JSON nesting deeper
// than json_fields::kMaxJsonDepth is not read.
std::optional<nlohmann::json> eventFromStreamData(std::string_view data);

// Whether GET /v1/me/provider-keys ({"provider_keys": [{"provider", ...}]}) lists keyName.
bool listsProviderKey(const nlohmann::json& answer, const std::string& keyName);

} // namespace warren::remote
