#pragma once
// What one line of a CLI's structured output means to Warren (ClaudeStream, CodexStream): the events it
// becomes, in the payload types every face reads (protocol/EventPayloads.h), and what the supervisor must
// know besides: the CLI's session id, and the run's end when the line is the CLI's final result.

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/TokenUsage.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

struct CliEvent {
    protocol::EventPayload payload;
    std::optional<std::string> tool; // the event's tool (tool_call, tool_result): the CLI's own tool name
};

// The CLI's own account of how its run ended (its result line). The supervisor emits task_finished from
// it once the CLI has exited, so that nothing follows task_finished.
struct CliEnd {
    protocol::FinishReason reason = protocol::FinishReason::Finished;
    std::string summary;
    std::optional<protocol::TokenUsage> usage;
};

// The CLI asks whether one of its tool calls may run (Claude Code's can_use_tool), and waits for the answer.
struct CliPermissionAsk {
    std::string requestId; // the answer carries the same id
    std::string tool;      // the CLI's own tool name
    nlohmann::json input = nlohmann::json::object();
    std::string callId; // the tool call's id: the tool_call event's id
};

// A CLI's call as Warren's approval rules and the window read it: Warren's tool and its arguments.
struct WarrenCall {
    std::string tool;
    nlohmann::json arguments;
};

// A path the CLI named, relative to the workspace (/workspace) when it lies inside it, as Warren's own agent
// names files; any other path as it is.
std::string workspaceRelative(std::string path);

struct CliLine {
    std::vector<CliEvent> events;
    std::optional<std::string> sessionId; // the CLI named its session (not yet checked: isValidSessionId)
    std::optional<CliEnd> end;
    std::optional<CliPermissionAsk> permission;
    // A line (with its newline) to write to the CLI's stdin at once: the answer to a request of the CLI's
    // that Warren does not serve, so that it does not wait for one.
    std::string reply;
};

// A tool's output as a tool_result carries it: at most this many bytes (cut on a UTF-8 boundary).
inline constexpr std::size_t kCliToolOutputBytes = 16 * 1024;
// The part of a line that is not understood which goes into the event that says so.
inline constexpr std::size_t kCliQuotedLineBytes = 300;

// text cut to at most limit bytes on a UTF-8 boundary; truncated says whether anything was cut.
std::string boundedText(const std::string& text, std::size_t limit, bool* truncated = nullptr);

} // namespace warren::agent
