// What a warrend (or whatever answers at the URL the user typed) sends the desktop and the CLI in remote
// mode, as bytes, through the reader the first byte picks:
//  0. the live event stream (GET /v1/tasks/{id}/events/stream): SseParser in pieces of the size the first
//     byte picks, each event's data as RemoteEventStream reads it (eventFromStreamData), then as an approval
//     (approvalFromEvent);
//  1. an answer's body as RemoteClient::callJson reads it, then through every reader of an answer: a task,
//     the task list, a page of events, the artifact list, the provider keys, an error's message;
//  2. the server probe's two answers (GET /v1/server, GET /v1/me), split at the first NUL.
// Nothing may crash, leak or trip a sanitizer; whatever is read is what its reader promises (an event is an
// object with its seq, nested no deeper than the cap; an artifact has a path; a task's spec is an object).

#include "FuzzInput.h"

#include "common/http/SseParser.h"
#include "app/remote/RemoteFailure.h"
#include "app/remote/RemoteTaskJson.h"
#include "app/remote/ServerAccountJson.h"
#include "common/JsonFields.h"

#include <QByteArray>

using namespace warren;
using nlohmann::json;
using warren::fuzz::require;

namespace {

std::size_t depth(const json& value) {
    std::size_t deepest = 0;
    if (value.is_structured())
        for (const auto& item : value)
            deepest = std::max(deepest, depth(item));
    return value.is_structured() ? deepest + 1 : 0;
}

void requireEvent(const json& event) {
    require(event.is_object() && event.contains("seq") && event["seq"].is_number_unsigned());
    require(depth(event) <= json_fields::kMaxJsonDepth);
}

void eventStream(std::string_view bytes, std::size_t piece) {
    SseParser parser;
    std::vector<SseEvent> frames;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
        auto some = parser.feed(bytes.substr(at, piece));
        frames.insert(frames.end(), some.begin(), some.end());
    }
    for (const auto& frame : frames) {
        const auto event = remote::eventFromStreamData(frame.data);
        if (!event)
            continue;
        requireEvent(*event);
        if (const auto approval = remote::approvalFromEvent("t-1", *event))
            require(approval->taskId == "t-1");
    }
}

void answers(std::string_view bytes) {
    (void)remote::serverMessage(QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())));
    const auto answer = json_fields::parseJson(bytes);
    if (!answer)
        return;
    if (auto task = remote::taskFromJson(*answer))
        require(json::parse(task->spec).is_object());
    if (auto tasks = remote::tasksFromJson(*answer))
        for (const auto& task : *tasks)
            require(json::parse(task.spec).is_object());
    if (auto page = remote::eventsPageFromJson("t-1", *answer))
        for (const auto& event : page->events)
            requireEvent(event);
    if (auto artifacts = remote::artifactsFromJson("t-1", *answer))
        for (const auto& artifact : *artifacts)
            require(!artifact.path.empty() && artifact.taskId == "t-1");
    (void)remote::listsProviderKey(*answer, "openai");
    (void)remote::approvalFromEvent("t-1", *answer);
}

void probe(std::string_view bytes) {
    const std::size_t nul = bytes.find('\0');
    if (nul == std::string_view::npos)
        return;
    const auto info = json_fields::parseJson(bytes.substr(0, nul));
    const auto me = json_fields::parseJson(bytes.substr(nul + 1));
    if (!info || !me)
        return;
    if (auto account = remote::serverAccountFromJson("https://w", *info, *me))
        require(account->server == "https://w" && account->quotas.is_object());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    switch (input.pick(3)) {
    case 0:
        eventStream(input.body, input.pieceSize());
        break;
    case 1:
        answers(input.body);
        break;
    default:
        probe(input.body);
        break;
    }
    return 0;
}
