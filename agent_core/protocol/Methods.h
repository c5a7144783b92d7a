#pragma once
// The methods of the agent <-> control plane protocol, with their params and results. docs/PROTOCOL.md
// describes each with an example line. Readers are strict (unknown keys and wrong types are errors naming
// the key) so that a mismatch between the two sides shows up as an error, not as a default value.

#include "agent_core/protocol/AgentKind.h"
#include "agent_core/protocol/TokenUsage.h"
#include "agent_core/protocol/ToolCall.h"
#include "common/Result.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::protocol {

// Bumped when a change would make an old peer misread a message; sent in task.start.
inline constexpr std::uint64_t kProtocolVersion = 6;

namespace method {
// agent -> control plane, notification: one event of the task (Event.h).
inline constexpr const char* kEvent = "event";
// agent -> control plane, requests.
inline constexpr const char* kLlmChat = "llm.chat"; // one model call; the control plane holds the keys
inline constexpr const char* kApprovalRequest = "approval.request"; // may this risky tool call run?
inline constexpr const char* kMemoryGet = "memory.get";
inline constexpr const char* kMemoryPut = "memory.put";
inline constexpr const char* kMemorySearch = "memory.search";
// The task's trees as tar archives in chunks, for an agent whose sandbox has none of the host's files (a
// cluster's pod): the workspace into the sandbox, the workspace, /state and /output back.
inline constexpr const char* kWorkspacePull = "workspace.pull";
inline constexpr const char* kWorkspacePush = "workspace.push";
// control plane -> agent, request: the task to run.
inline constexpr const char* kTaskStart = "task.start";
// control plane -> agent, notifications.
inline constexpr const char* kControlCancel = "control.cancel"; // stop now, kill running tools, exit
inline constexpr const char* kControlPause = "control.pause";   // write a checkpoint and exit; resumable
} // namespace method

// The member of a request's params that carries the task token (TaskStartParams::token).
inline constexpr const char* kTokenParam = "token";

// The reasoning_effort values llm.chat carries, lowest first.
inline constexpr std::array<std::string_view, 4> kReasoningEfforts{"minimal", "low", "medium", "high"};

// llm.chat
// What a model thought before it answered, as its API returned it. Anthropic's extended thinking returns
// "thinking" blocks (the summarised thinking and a signature) and "redacted_thinking" blocks (encrypted
// data); with tool use the API requires them back, unchanged, in the assistant message the tool results
// answer, so the agent keeps them in its history as opaque values. An OpenAI-compatible server's
// reasoning text (reasoning_content) is a "thinking" block without a signature: shown, never sent back.
struct ReasoningBlock {
    std::string type;      // "thinking" or "redacted_thinking"
    std::string text;      // thinking: what the model thought (may be a summary)
    std::string signature; // thinking: the API's signature over it; empty when the API gave none
    std::string data;      // redacted_thinking: the encrypted thinking
    friend bool operator==(const ReasoningBlock&, const ReasoningBlock&) = default;
};

struct ChatMessage {
    std::string role; // "system", "user", "assistant" or "tool"
    std::string content;
    std::vector<ToolCall> toolCalls;       // assistant messages only
    std::optional<std::string> toolCallId; // tool messages only: the call this is the result of
    // Assistant messages only: the reply's reasoning, kept to send back.
    std::vector<ReasoningBlock> reasoning = {};
    friend bool operator==(const ChatMessage&, const ChatMessage&) = default;
};

struct ToolSpec {
    std::string name;
    std::string description;
    nlohmann::json parameters = nlohmann::json::object(); // JSON Schema of the arguments
    friend bool operator==(const ToolSpec&, const ToolSpec&) = default;
};

struct LlmChatParams {
    std::vector<ChatMessage> messages;
    std::vector<ToolSpec> tools;
    // The reply's output token limit (max_output_tokens); nullopt: the provider's default.
    std::optional<std::uint64_t> maxOutputTokens = std::nullopt;
    // "minimal", "low", "medium" or "high" (reasoning_effort); nullopt: the model's default, no reasoning
    // asked for where it is optional.
    std::optional<std::string> reasoningEffort = std::nullopt;
    // The sub-agent asking (its events' agent); nullopt: the task's own agent. The control plane tags
    // the model_delta events it streams with it.
    std::optional<std::string> agent = std::nullopt;
    friend bool operator==(const LlmChatParams&, const LlmChatParams&) = default;
};

struct LlmChatResult {
    std::string content;
    std::vector<ToolCall> toolCalls;
    TokenUsage tokenUsage;
    std::string finishReason; // "stop", "tool_calls" or "length"
    std::vector<ReasoningBlock> reasoning = {}; // in the order the model wrote them
    // finish_reason "length" only: tool calls the limit cut before their arguments were complete. They are
    // not in toolCalls; the agent must not run them, only tell the model or ask again.
    std::uint64_t cutToolCalls = 0;
    friend bool operator==(const LlmChatResult&, const LlmChatResult&) = default;
};

// approval.request
struct ApprovalRequestParams {
    std::string tool;
    nlohmann::json arguments = nlohmann::json::object();
    std::string reason; // why the call needs approval, shown to the user
    std::string callId; // the tool call's id, as in approval_requested's data.id ("call_id"; empty: not given)
    friend bool operator==(const ApprovalRequestParams&, const ApprovalRequestParams&) = default;
};

struct ApprovalResult {
    bool approved = false;
    std::optional<std::string> note; // the user's words, passed on to the model when denied
    friend bool operator==(const ApprovalResult&, const ApprovalResult&) = default;
};

// memory.get / memory.put / memory.search. The control plane prefixes every key with the task's memory
// prefix: the agent never sees another tenant's keys.
struct MemoryGetParams {
    std::string ns;
    std::string key;
    friend bool operator==(const MemoryGetParams&, const MemoryGetParams&) = default;
};

struct MemoryGetResult {
    std::optional<std::string> value; // nullopt: no such key
    friend bool operator==(const MemoryGetResult&, const MemoryGetResult&) = default;
};

struct MemoryPutParams {
    std::string ns;
    std::string key;
    std::string value;
    friend bool operator==(const MemoryPutParams&, const MemoryPutParams&) = default;
};

struct MemorySearchParams {
    std::string query;
    std::uint64_t limit = 10;
    bool ranked = true; // the task's semantic_index: ranked full-text search, or substring matches
    friend bool operator==(const MemorySearchParams&, const MemorySearchParams&) = default;
};

struct MemoryHit {
    std::string ns;
    std::string key;
    std::string value;
    friend bool operator==(const MemoryHit&, const MemoryHit&) = default;
};

struct MemorySearchResult {
    std::vector<MemoryHit> hits; // best first
    friend bool operator==(const MemorySearchResult&, const MemorySearchResult&) = default;
};

// workspace.pull / workspace.push. A chunk's bytes travel as base64 in a JSON string; at most
// kTransferChunkBytes of them per message, so a line stays far below the reader's cap.
inline constexpr std::size_t kTransferChunkBytes = 1u << 20;

// The task's trees these carry: the workspace, /state (the checkpoint a resume starts from) and /output.
inline constexpr std::array<std::string_view, 3> kTransferTrees{"workspace", "state", "output"};

// The chunk of the tar of one of the task's trees that starts at offset. Offsets follow each other from 0;
// asking for 0 again starts the archive again.
struct WorkspacePullParams {
    std::string tree; // one of kTransferTrees
    std::uint64_t offset = 0;
    friend bool operator==(const WorkspacePullParams&, const WorkspacePullParams&) = default;
};

struct WorkspacePullResult {
    std::string data; // the chunk's bytes (base64 on the wire); empty only with eof
    bool eof = false; // the archive ends with this chunk
    friend bool operator==(const WorkspacePullResult&, const WorkspacePullResult&) = default;
};

// A chunk of a tar of one of the agent's trees, at offset (the chunks follow each other from 0). With eof,
// the archive is complete: the control plane extracts it and replaces its copy of the tree with it. The
// result is {}.
struct WorkspacePushParams {
    std::string tree; // one of kTransferTrees
    std::uint64_t offset = 0;
    std::string data; // the chunk's bytes (base64 on the wire)
    bool eof = false;
    friend bool operator==(const WorkspacePushParams&, const WorkspacePushParams&) = default;
};

// task.start's cli: run this coding-agent CLI under warren-agent's supervisor instead of Warren's own loop
// (docs/AGENT.md "A CLI agent"). Every path is inside the sandbox.
struct CliAgentParams {
    AgentKind kind = AgentKind::ClaudeCode;
    // The CLI's executable (mounted read-only by the control plane); or, in a cluster's pod, its command name
    // (cliCommandName), the image's, found on the agent's PATH.
    std::string program;
    std::vector<std::string> pathDirs; // directories put on the CLI's PATH before the system's (codex's rg)
    // The Unix socket of the control plane's model proxy; empty in a cluster's pod, whose model calls cross
    // the agent's TCP connection's listener, each with a model stream's hello (AgentHello.h).
    std::string modelSocket;
    std::string model;                 // the model name the CLI asks for
    // approval_tools of the task's settings (Warren's tool names): the CLI's calls of these wait for
    // approval.request, as Warren's own agent's do. Empty: none waits.
    std::vector<std::string> approvalTools = {};
    friend bool operator==(const CliAgentParams&, const CliAgentParams&) = default;
};

// task.start
struct TaskStartParams {
    std::uint64_t protocolVersion = kProtocolVersion;
    std::string taskId;
    std::string prompt;
    std::vector<std::string> presets;                    // applied in order, later wins
    nlohmann::json overrides = nlohmann::json::object(); // key -> value, applied after the presets
    // The task's tool-proxy token: the agent puts it in the params of every request it sends (kTokenParam),
    // and the control plane checks it (task, scope, expiry, revocation) before acting.
    std::optional<std::string> token;
    // Facts of the run the agent cannot see from inside and tells the model (its system prompt): the sandbox
    // backend ("bwrap", "podman", ...), the network policy ("none", "loopback", "allow:HOST,..."), the
    // provider ("openai", "anthropic", "ollama", ...) and the model's name. nullopt: not known.
    std::optional<std::string> sandbox = std::nullopt;
    std::optional<std::string> network = std::nullopt;
    std::optional<std::string> provider = std::nullopt;
    std::optional<std::string> model = std::nullopt;
    // The user's reply to a task whose run ended: the agent continues from its checkpoint with this message
    // added to the conversation (a user_message event). nullopt: a start, or a plain resume.
    std::optional<std::string> reply = std::nullopt;
    // A user follows the run: a reply without a tool call ends it waiting for theirs (RunFacts::attended).
    bool attended = false;
    // Run a coding-agent CLI instead of Warren's own agent; token is then the CLI's API key, which the model
    // proxy behind modelSocket swaps for the real one. nullopt: Warren's own agent.
    std::optional<CliAgentParams> cli = std::nullopt;
    friend bool operator==(const TaskStartParams&, const TaskStartParams&) = default;
};

// control.cancel / control.pause
struct ControlParams {
    std::optional<std::string> reason;
    friend bool operator==(const ControlParams&, const ControlParams&) = default;
};

nlohmann::json toJson(const ToolCall& call);
Result<ToolCall> toolCallFromJson(const nlohmann::json& value, const std::string& where);
nlohmann::json toJson(const TokenUsage& usage);
Result<TokenUsage> tokenUsageFromJson(const nlohmann::json& value, const std::string& where);

nlohmann::json toJson(const ReasoningBlock& block);
Result<ReasoningBlock> reasoningBlockFromJson(const nlohmann::json& value, const std::string& where);
nlohmann::json toJson(const ChatMessage& message);
Result<ChatMessage> chatMessageFromJson(const nlohmann::json& value, const std::string& where);
nlohmann::json toJson(const ToolSpec& spec);
Result<ToolSpec> toolSpecFromJson(const nlohmann::json& value, const std::string& where);
nlohmann::json toJson(const MemoryHit& hit);
Result<MemoryHit> memoryHitFromJson(const nlohmann::json& value, const std::string& where);

nlohmann::json toJson(const LlmChatParams& params);
Result<LlmChatParams> llmChatParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const LlmChatResult& result);
Result<LlmChatResult> llmChatResultFromJson(const nlohmann::json& value);

nlohmann::json toJson(const ApprovalRequestParams& params);
Result<ApprovalRequestParams> approvalRequestParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const ApprovalResult& result);
Result<ApprovalResult> approvalResultFromJson(const nlohmann::json& value);

nlohmann::json toJson(const MemoryGetParams& params);
Result<MemoryGetParams> memoryGetParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const MemoryGetResult& result);
Result<MemoryGetResult> memoryGetResultFromJson(const nlohmann::json& value);
nlohmann::json toJson(const MemoryPutParams& params);
Result<MemoryPutParams> memoryPutParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const MemorySearchParams& params);
Result<MemorySearchParams> memorySearchParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const MemorySearchResult& result);
Result<MemorySearchResult> memorySearchResultFromJson(const nlohmann::json& value);

nlohmann::json toJson(const WorkspacePullParams& params);
// Also refuses a tree not in kTransferTrees.
Result<WorkspacePullParams> workspacePullParamsFromJson(const nlohmann::json& value);
nlohmann::json toJson(const WorkspacePullResult& result);
// Also refuses data that is not base64 or decodes to more than kTransferChunkBytes.
Result<WorkspacePullResult> workspacePullResultFromJson(const nlohmann::json& value);
nlohmann::json toJson(const WorkspacePushParams& params);
// Also refuses a tree not in kTransferTrees, and data as the pull's result does.
Result<WorkspacePushParams> workspacePushParamsFromJson(const nlohmann::json& value);

nlohmann::json toJson(const CliAgentParams& params);
// Also refuses an unknown kind, a program that is neither an absolute path nor the CLI's command name, and a
// model_socket that is neither absolute nor empty.
Result<CliAgentParams> cliAgentParamsFromJson(const nlohmann::json& value, const std::string& where);
nlohmann::json toJson(const TaskStartParams& params);
// Also refuses a protocol_version other than kProtocolVersion, naming both.
Result<TaskStartParams> taskStartParamsFromJson(const nlohmann::json& value);

nlohmann::json toJson(const ControlParams& params);
Result<ControlParams> controlParamsFromJson(const nlohmann::json& value);

} // namespace warren::protocol
