#include "server/api/EventsApi.h"

#include "app/store/Store.h"
#include "app/wire/EventsPage.h"
#include "server/api/EventStreams.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/ServerParts.h"

#include <charconv>

namespace warren::server {

using nlohmann::json;

namespace {

constexpr std::uint64_t kPageLimit = 1000;

// A non-negative whole number from a query parameter or header; nullopt when absent, an error naming it
// when it is something else.
Result<std::optional<std::uint64_t>> wholeNumber(const std::optional<QString>& text,
                                                 const std::string& name) {
    if (!text)
        return std::optional<std::uint64_t>();
    const std::string value = text->toStdString();
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || error != std::errc() || end != value.data() + value.size())
        return makeError(ErrorCode::InvalidArgument, name + " \"" + value + "\": expected a whole number");
    return std::optional<std::uint64_t>(number);
}

std::optional<QString> query(const http::HttpRequest& request, const char* name) {
    const auto it = request.query.find(QString::fromLatin1(name));
    return it == request.query.end() ? std::nullopt : std::optional<QString>(*it);
}

void page(ServerParts& parts, const Owned& owned, const http::HttpRequest& request, http::HttpReply reply) {
    auto after = wholeNumber(query(request, "after_seq"), "after_seq");
    auto before = wholeNumber(query(request, "before_seq"), "before_seq");
    auto limit = wholeNumber(query(request, "limit"), "limit");
    for (const auto* number : {&after, &before, &limit})
        if (!*number)
            return reply.send(errorResponse(number->error()));
    // One direction a page: forward from after_seq (a reader catching up), or back from before_seq (a
    // window opening a task at its end and paging earlier events in).
    if (*after && *before)
        return reply.send(errorResponse(makeError(
            ErrorCode::InvalidArgument, "after_seq and before_seq: give one of them, not both")));
    const std::uint64_t count = std::clamp<std::uint64_t>(limit->value_or(kPageLimit), 1, kPageLimit);
    auto rows = *before ? parts.store.eventsBefore(owned.task.id, **before, count)
                        : parts.store.events(owned.task.id, after->value_or(0), count);
    if (!rows)
        return reply.send(errorResponse(rows.error()));
    wire::EventsPage events;
    for (const auto& row : *rows)
        events.events.push_back(json::parse(row.body, nullptr, false));
    events.lastSeq = !rows->empty() ? rows->back().seq : *before ? 0 : after->value_or(0);
    reply.send(jsonResponse(200, events.toJson()));
}

void stream(ServerParts& parts, const Owned& owned, const http::HttpRequest& request, http::HttpReply reply) {
    auto after = wholeNumber(query(request, "after_seq"), "after_seq");
    const auto header = request.header("Last-Event-ID");
    auto resumeFrom = wholeNumber(
        header ? std::optional<QString>(QString::fromLatin1(*header)) : std::nullopt, "Last-Event-ID");
    if (!after || !resumeFrom)
        return reply.send(errorResponse(!after ? after.error() : resumeFrom.error()));
    parts.streams.open(owned.task.id, resumeFrom->value_or(after->value_or(0)), reply);
}

} // namespace

void addEventRoutes(http::Router& router, ServerParts& parts) {
    addOwnedTaskRoute(router, parts, "GET", "/v1/tasks/{id}/events",
                      [&parts](const accounts::Account&, const Owned& owned, const http::HttpRequest& request,
                               http::HttpReply reply) { page(parts, owned, request, std::move(reply)); });
    addOwnedTaskRoute(router, parts, "GET", "/v1/tasks/{id}/events/stream",
                      [&parts](const accounts::Account&, const Owned& owned, const http::HttpRequest& request,
                               http::HttpReply reply) { stream(parts, owned, request, std::move(reply)); });
}

} // namespace warren::server
