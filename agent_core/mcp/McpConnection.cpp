#include "agent_core/mcp/McpConnection.h"

#include "agent_core/protocol/SetupNotices.h"
#include "agent_core/tools/ToolText.h"

namespace warren::agent {

using nlohmann::json;

namespace {
// Bytes of a server's error message kept in what the model or the user reads.
constexpr std::size_t kMaxErrorMessageBytes = 2048;
} // namespace

std::string secondsBetween(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
    return std::to_string(std::chrono::ceil<std::chrono::seconds>(to - from).count()) + " s";
}

McpConnection::McpConnection(std::string name)
    : m_name(std::move(name)), m_label(protocol::mcpServerLabel(m_name)) {}

Result<McpServerInfo> McpConnection::initialize(Deadline deadline, const Cancellation* stop) {
    auto reply = request(initializeRequest(m_nextId++), deadline, stop);
    if (reply.kind != Reply::Kind::Result) {
        fail(reply.kind == Reply::Kind::Closed ? m_closedReason : reply.message);
        return makeError(ErrorCode::Unavailable, m_closedReason);
    }
    auto info = readInitializeResult(reply.result);
    if (!info) {
        fail(m_label + " cannot be used: " + info.error().message);
        return makeError(ErrorCode::Unsupported, m_closedReason);
    }
    send(initializedNotification(), deadline);
    if (!isOpen())
        return makeError(ErrorCode::Unavailable, m_closedReason);
    return info;
}

Result<McpToolListing> McpConnection::listTools(Deadline deadline, const Cancellation* stop) {
    m_toolsChanged = false; // a change announced from here on is read by the next listing
    McpToolListing listing;
    std::optional<std::string> cursor;
    do {
        auto reply = request(toolsListRequest(m_nextId++, cursor), deadline, stop);
        if (reply.kind != Reply::Kind::Result)
            return makeError(ErrorCode::Unavailable, reply.message);
        auto page = readToolsListResult(reply.result);
        if (!page)
            return makeError(ErrorCode::InvalidArgument, m_label + ": " + page.error().message);
        cursor = listing.add(std::move(page).value());
    } while (cursor);
    return listing;
}

McpConnection::Reply McpConnection::callTool(const std::string& tool, const json& arguments, Deadline deadline,
                                             const Cancellation* stop) {
    return request(toolsCallRequest(m_nextId++, tool, arguments), deadline, stop);
}

void McpConnection::takeMessage(protocol::Message message, Deadline sendBy) {
    if (auto* request = std::get_if<protocol::Request>(&message)) {
        send(answerServerRequest(*request), sendBy);
        return;
    }
    if (auto* notification = std::get_if<protocol::Notification>(&message)) {
        if (notification->method == "notifications/tools/list_changed")
            m_toolsChanged = true;
        return; // logging, progress and the rest tell the agent nothing it acts on
    }
    if (auto* response = std::get_if<protocol::Response>(&message)) {
        if (m_awaiting && response->id == *m_awaiting)
            m_answer = std::move(message);
        return; // an answer to a request given up on comes late: nobody waits for it
    }
    auto& error = std::get<protocol::ErrorResponse>(message);
    // Without an id the server could not read a request: the one waiting, since one is sent at a time.
    if (m_awaiting && (!error.id || *error.id == *m_awaiting))
        m_answer = std::move(message);
}

void McpConnection::await(const protocol::Id& id) {
    m_awaiting = id;
    m_answer.reset();
}

McpConnection::Reply McpConnection::takeAnswer(const std::string& method) {
    m_awaiting.reset();
    auto answer = std::move(*m_answer);
    m_answer.reset();
    if (auto* response = std::get_if<protocol::Response>(&answer))
        return {Reply::Kind::Result, std::move(response->result), {}};
    const auto& error = std::get<protocol::ErrorResponse>(answer).error;
    return {Reply::Kind::Error,
            {},
            m_label + " answered " + method + " with error " + std::to_string(error.code) + ": " +
                shortenLine(error.message, kMaxErrorMessageBytes)};
}

void McpConnection::forgetAwaited() {
    m_awaiting.reset();
    m_answer.reset();
}

McpConnection::Reply McpConnection::giveUp(const protocol::Id& id, Reply::Kind kind, std::string why,
                                           Deadline sendBy) {
    forgetAwaited();
    if (isOpen())
        send(cancelledNotification(id, kind == Reply::Kind::Cancelled ? "a stop was requested"
                                                                      : "no answer by the deadline"),
             sendBy);
    return Reply{kind, {}, std::move(why)};
}

void McpConnection::markClosed(std::string reason) {
    if (isOpen())
        m_closedReason = std::move(reason);
    m_awaiting.reset();
}

} // namespace warren::agent
