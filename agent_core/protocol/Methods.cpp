#include "agent_core/protocol/Methods.h"

#include "common/Base64.h"
#include "common/JsonFields.h"

#include <algorithm>

namespace warren::protocol {

using nlohmann::json;
using namespace json_fields;

namespace {

template <typename T> json arrayToJson(const std::vector<T>& items) {
    json out = json::array();
    for (const auto& item : items)
        out.push_back(toJson(item));
    return out;
}

// A transfer chunk's data: base64 of at most kTransferChunkBytes.
Result<std::string> chunkFromJson(const json& value, const std::string& where) {
    Error error;
    std::string text;
    if (!take(getString(value, "data", where), text, error))
        return error;
    if (text.size() > (kTransferChunkBytes + 2) / 3 * 4)
        return makeError(ErrorCode::InvalidArgument, joinPath(where, "data") + ": a chunk holds at most " +
                                                         std::to_string(kTransferChunkBytes) + " bytes");
    auto bytes = decodeBase64(text);
    if (!bytes)
        return makeError(ErrorCode::InvalidArgument, joinPath(where, "data") + ": must be base64");
    return std::move(*bytes);
}

// One of kTransferTrees.
Result<std::string> treeFromJson(const json& value, const std::string& where) {
    Error error;
    std::string tree;
    if (!take(getString(value, "tree", where), tree, error))
        return error;
    if (std::find(kTransferTrees.begin(), kTransferTrees.end(), tree) == kTransferTrees.end())
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(where, "tree") + ": must be workspace, state or output, got \"" + tree + "\"");
    return tree;
}

} // namespace

json toJson(const ReasoningBlock& block) {
    if (block.type == "redacted_thinking")
        return {{"type", block.type}, {"data", block.data}};
    json out = {{"type", block.type}, {"thinking", block.text}};
    if (!block.signature.empty())
        out["signature"] = block.signature;
    return out;
}

Result<ReasoningBlock> reasoningBlockFromJson(const json& value, const std::string& where) {
    Error error;
    ReasoningBlock block;
    if (!take(requireObject(value, where), error) || !take(getString(value, "type", where), block.type, error))
        return error;
    if (block.type == "redacted_thinking") {
        if (!take(checkKeys(value, {"type", "data"}, where), error) ||
            !take(getString(value, "data", where), block.data, error))
            return error;
        return block;
    }
    if (block.type != "thinking")
        return makeError(ErrorCode::InvalidArgument, joinPath(where, "type") +
                                                         ": must be thinking or redacted_thinking, got \"" +
                                                         block.type + "\"");
    std::optional<std::string> signature;
    if (!take(checkKeys(value, {"type", "thinking", "signature"}, where), error) ||
        !take(getString(value, "thinking", where), block.text, error) ||
        !take(getOptionalString(value, "signature", where), signature, error))
        return error;
    block.signature = signature.value_or("");
    return block;
}

json toJson(const ChatMessage& message) {
    json out = {{"role", message.role}, {"content", message.content}};
    if (!message.toolCalls.empty())
        out["tool_calls"] = arrayToJson(message.toolCalls);
    if (message.toolCallId)
        out["tool_call_id"] = *message.toolCallId;
    if (!message.reasoning.empty())
        out["reasoning"] = arrayToJson(message.reasoning);
    return out;
}

Result<ChatMessage> chatMessageFromJson(const json& value, const std::string& where) {
    Error error;
    ChatMessage message;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"role", "content", "tool_calls", "tool_call_id", "reasoning"}, where), error) ||
        !take(getString(value, "role", where), message.role, error) ||
        !take(getString(value, "content", where), message.content, error) ||
        !take(getArray<ToolCall>(value, "tool_calls", where, false, toolCallFromJson), message.toolCalls,
              error) ||
        !take(getOptionalString(value, "tool_call_id", where), message.toolCallId, error) ||
        !take(getArray<ReasoningBlock>(value, "reasoning", where, false, reasoningBlockFromJson),
              message.reasoning, error))
        return error;
    if (message.role != "system" && message.role != "user" && message.role != "assistant" &&
        message.role != "tool")
        return makeError(ErrorCode::InvalidArgument, joinPath(where, "role") +
                                                         ": must be system, user, assistant or tool, got \"" +
                                                         message.role + "\"");
    return message;
}

json toJson(const ToolSpec& spec) {
    return {{"name", spec.name}, {"description", spec.description}, {"parameters", spec.parameters}};
}

Result<ToolSpec> toolSpecFromJson(const json& value, const std::string& where) {
    Error error;
    ToolSpec spec;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"name", "description", "parameters"}, where), error) ||
        !take(getString(value, "name", where), spec.name, error) ||
        !take(getString(value, "description", where), spec.description, error) ||
        !take(getObject(value, "parameters", where), spec.parameters, error))
        return error;
    return spec;
}

json toJson(const MemoryHit& hit) {
    return {{"namespace", hit.ns}, {"key", hit.key}, {"value", hit.value}};
}

Result<MemoryHit> memoryHitFromJson(const json& value, const std::string& where) {
    Error error;
    MemoryHit hit;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"namespace", "key", "value"}, where), error) ||
        !take(getString(value, "namespace", where), hit.ns, error) ||
        !take(getString(value, "key", where), hit.key, error) ||
        !take(getString(value, "value", where), hit.value, error))
        return error;
    return hit;
}

json toJson(const ToolCall& call) {
    json out = {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
    if (call.invalidArguments)
        out["invalid_arguments"] = *call.invalidArguments;
    return out;
}

Result<ToolCall> toolCallFromJson(const json& value, const std::string& where) {
    Error error;
    ToolCall call;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"id", "name", "arguments", "invalid_arguments"}, where), error) ||
        !take(getString(value, "id", where), call.id, error) ||
        !take(getString(value, "name", where), call.name, error) ||
        !take(getObject(value, "arguments", where), call.arguments, error) ||
        !take(getOptionalString(value, "invalid_arguments", where), call.invalidArguments, error))
        return error;
    return call;
}

json toJson(const TokenUsage& usage) {
    json out = {{"input", usage.input}, {"output", usage.output}};
    if (usage.reasoning)
        out["reasoning"] = usage.reasoning;
    return out;
}

Result<TokenUsage> tokenUsageFromJson(const json& value, const std::string& where) {
    Error error;
    TokenUsage usage;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"input", "output", "reasoning"}, where), error) ||
        !take(getUint(value, "input", where), usage.input, error) ||
        !take(getUint(value, "output", where), usage.output, error))
        return error;
    std::optional<std::uint64_t> reasoning;
    if (!take(getOptionalUint(value, "reasoning", where), reasoning, error))
        return error;
    usage.reasoning = reasoning.value_or(0);
    return usage;
}

json toJson(const LlmChatParams& params) {
    json out = {{"messages", arrayToJson(params.messages)}, {"tools", arrayToJson(params.tools)}};
    // Only when set: a conversation that asks for neither is the same line as in protocol version 1's first
    // form, which a control plane that predates these keys still reads.
    if (params.maxOutputTokens)
        out["max_output_tokens"] = *params.maxOutputTokens;
    if (params.reasoningEffort)
        out["reasoning_effort"] = *params.reasoningEffort;
    if (params.agent)
        out["agent"] = *params.agent;
    return out;
}

Result<LlmChatParams> llmChatParamsFromJson(const json& value) {
    const std::string where = "llm.chat params";
    Error error;
    LlmChatParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"messages", "tools", "max_output_tokens", "reasoning_effort", "agent"}, where), error) ||
        !take(getArray<ChatMessage>(value, "messages", where, true, chatMessageFromJson), params.messages,
              error) ||
        !take(getArray<ToolSpec>(value, "tools", where, false, toolSpecFromJson), params.tools, error) ||
        !take(getOptionalUint(value, "max_output_tokens", where), params.maxOutputTokens, error) ||
        !take(getOptionalString(value, "reasoning_effort", where), params.reasoningEffort, error) ||
        !take(getOptionalString(value, "agent", where), params.agent, error))
        return error;
    if (params.maxOutputTokens && *params.maxOutputTokens == 0)
        return makeError(ErrorCode::InvalidArgument, where + ".max_output_tokens: must be at least 1, got 0");
    if (params.reasoningEffort &&
        std::find(kReasoningEfforts.begin(), kReasoningEfforts.end(), *params.reasoningEffort) ==
            kReasoningEfforts.end())
        return makeError(ErrorCode::InvalidArgument, where +
                                                         ".reasoning_effort: must be minimal, low, medium or "
                                                         "high, got \"" +
                                                         *params.reasoningEffort + "\"");
    return params;
}

json toJson(const LlmChatResult& result) {
    json out = {{"content", result.content},
                {"tool_calls", arrayToJson(result.toolCalls)},
                {"token_usage", toJson(result.tokenUsage)},
                {"finish_reason", result.finishReason}};
    if (!result.reasoning.empty())
        out["reasoning"] = arrayToJson(result.reasoning);
    if (result.cutToolCalls)
        out["cut_tool_calls"] = result.cutToolCalls;
    return out;
}

Result<LlmChatResult> llmChatResultFromJson(const json& value) {
    const std::string where = "llm.chat result";
    Error error;
    LlmChatResult result;
    json usage;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"content", "tool_calls", "token_usage", "finish_reason", "reasoning",
                                "cut_tool_calls"},
                        where),
              error) ||
        !take(getString(value, "content", where), result.content, error) ||
        !take(getArray<ToolCall>(value, "tool_calls", where, false, toolCallFromJson), result.toolCalls,
              error) ||
        !take(getObject(value, "token_usage", where), usage, error) ||
        !take(tokenUsageFromJson(usage, joinPath(where, "token_usage")), result.tokenUsage, error) ||
        !take(getString(value, "finish_reason", where), result.finishReason, error) ||
        !take(getArray<ReasoningBlock>(value, "reasoning", where, false, reasoningBlockFromJson), result.reasoning,
              error))
        return error;
    std::optional<std::uint64_t> cut;
    if (!take(getOptionalUint(value, "cut_tool_calls", where), cut, error))
        return error;
    result.cutToolCalls = cut.value_or(0);
    if (result.finishReason != "stop" && result.finishReason != "tool_calls" &&
        result.finishReason != "length")
        return makeError(ErrorCode::InvalidArgument,
                         where + ".finish_reason: must be stop, tool_calls or length, got \"" +
                             result.finishReason + "\"");
    return result;
}

json toJson(const ApprovalRequestParams& params) {
    json out = {{"tool", params.tool}, {"arguments", params.arguments}, {"reason", params.reason}};
    if (!params.callId.empty())
        out["call_id"] = params.callId;
    return out;
}

Result<ApprovalRequestParams> approvalRequestParamsFromJson(const json& value) {
    const std::string where = "approval.request params";
    Error error;
    ApprovalRequestParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"tool", "arguments", "reason", "call_id"}, where), error) ||
        !take(getString(value, "tool", where), params.tool, error) ||
        !take(getObject(value, "arguments", where), params.arguments, error) ||
        !take(getString(value, "reason", where), params.reason, error))
        return error;
    std::optional<std::string> callId;
    if (!take(getOptionalString(value, "call_id", where), callId, error))
        return error;
    params.callId = callId.value_or("");
    return params;
}

json toJson(const ApprovalResult& result) {
    json out = {{"approved", result.approved}};
    if (result.note)
        out["note"] = *result.note;
    return out;
}

Result<ApprovalResult> approvalResultFromJson(const json& value) {
    const std::string where = "approval.request result";
    Error error;
    ApprovalResult result;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"approved", "note"}, where), error) ||
        !take(getBool(value, "approved", where), result.approved, error) ||
        !take(getOptionalString(value, "note", where), result.note, error))
        return error;
    return result;
}

json toJson(const MemoryGetParams& params) {
    return {{"namespace", params.ns}, {"key", params.key}};
}

Result<MemoryGetParams> memoryGetParamsFromJson(const json& value) {
    const std::string where = "memory.get params";
    Error error;
    MemoryGetParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"namespace", "key"}, where), error) ||
        !take(getString(value, "namespace", where), params.ns, error) ||
        !take(getString(value, "key", where), params.key, error))
        return error;
    return params;
}

json toJson(const MemoryGetResult& result) {
    return {{"found", result.value.has_value()},
            {"value", result.value ? json(*result.value) : json(nullptr)}};
}

Result<MemoryGetResult> memoryGetResultFromJson(const json& value) {
    const std::string where = "memory.get result";
    Error error;
    bool found = false;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"found", "value"}, where), error) ||
        !take(getBool(value, "found", where), found, error))
        return error;
    if (!found)
        return MemoryGetResult{};
    std::string text;
    if (!take(getString(value, "value", where), text, error))
        return error;
    return MemoryGetResult{std::move(text)};
}

json toJson(const MemoryPutParams& params) {
    return {{"namespace", params.ns}, {"key", params.key}, {"value", params.value}};
}

Result<MemoryPutParams> memoryPutParamsFromJson(const json& value) {
    const std::string where = "memory.put params";
    Error error;
    MemoryPutParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"namespace", "key", "value"}, where), error) ||
        !take(getString(value, "namespace", where), params.ns, error) ||
        !take(getString(value, "key", where), params.key, error) ||
        !take(getString(value, "value", where), params.value, error))
        return error;
    return params;
}

json toJson(const MemorySearchParams& params) {
    return {{"query", params.query}, {"limit", params.limit}, {"ranked", params.ranked}};
}

Result<MemorySearchParams> memorySearchParamsFromJson(const json& value) {
    const std::string where = "memory.search params";
    Error error;
    MemorySearchParams params;
    std::optional<std::uint64_t> limit;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"query", "limit", "ranked"}, where), error) ||
        !take(getString(value, "query", where), params.query, error) ||
        !take(getOptionalUint(value, "limit", where), limit, error))
        return error;
    if (limit)
        params.limit = *limit;
    if (value.contains("ranked")) {
        if (!take(getBool(value, "ranked", where), params.ranked, error))
            return error;
    }
    return params;
}

json toJson(const MemorySearchResult& result) {
    return {{"hits", arrayToJson(result.hits)}};
}

Result<MemorySearchResult> memorySearchResultFromJson(const json& value) {
    const std::string where = "memory.search result";
    Error error;
    MemorySearchResult result;
    if (!take(requireObject(value, where), error) || !take(checkKeys(value, {"hits"}, where), error) ||
        !take(getArray<MemoryHit>(value, "hits", where, true, memoryHitFromJson), result.hits, error))
        return error;
    return result;
}

json toJson(const WorkspacePullParams& params) { return {{"tree", params.tree}, {"offset", params.offset}}; }

Result<WorkspacePullParams> workspacePullParamsFromJson(const json& value) {
    const std::string where = "workspace.pull params";
    Error error;
    WorkspacePullParams params;
    if (!take(requireObject(value, where), error) || !take(checkKeys(value, {"tree", "offset"}, where), error) ||
        !take(treeFromJson(value, where), params.tree, error) ||
        !take(getUint(value, "offset", where), params.offset, error))
        return error;
    return params;
}

json toJson(const WorkspacePullResult& result) {
    return {{"data", encodeBase64(result.data)}, {"eof", result.eof}};
}

Result<WorkspacePullResult> workspacePullResultFromJson(const json& value) {
    const std::string where = "workspace.pull result";
    Error error;
    WorkspacePullResult result;
    if (!take(requireObject(value, where), error) || !take(checkKeys(value, {"data", "eof"}, where), error) ||
        !take(chunkFromJson(value, where), result.data, error) ||
        !take(getBool(value, "eof", where), result.eof, error))
        return error;
    return result;
}

json toJson(const WorkspacePushParams& params) {
    return {{"tree", params.tree},
            {"offset", params.offset},
            {"data", encodeBase64(params.data)},
            {"eof", params.eof}};
}

Result<WorkspacePushParams> workspacePushParamsFromJson(const json& value) {
    const std::string where = "workspace.push params";
    Error error;
    WorkspacePushParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"tree", "offset", "data", "eof"}, where), error) ||
        !take(treeFromJson(value, where), params.tree, error) ||
        !take(getUint(value, "offset", where), params.offset, error) ||
        !take(chunkFromJson(value, where), params.data, error) ||
        !take(getBool(value, "eof", where), params.eof, error))
        return error;
    return params;
}

json toJson(const CliAgentParams& params) {
    return {{"kind", agentKindName(params.kind)},
            {"program", params.program},
            {"path_dirs", params.pathDirs},
            {"model_socket", params.modelSocket},
            {"model", params.model},
            {"approval_tools", params.approvalTools}};
}

Result<CliAgentParams> cliAgentParamsFromJson(const json& value, const std::string& where) {
    Error error;
    CliAgentParams params;
    std::string kind;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"kind", "program", "path_dirs", "model_socket", "model", "approval_tools"}, where),
              error) ||
        !take(getString(value, "kind", where), kind, error) ||
        !take(getString(value, "program", where), params.program, error) ||
        !take(getArray<std::string>(value, "path_dirs", where, false, readString), params.pathDirs, error) ||
        !take(getString(value, "model_socket", where), params.modelSocket, error) ||
        !take(getString(value, "model", where), params.model, error) ||
        !take(getArray<std::string>(value, "approval_tools", where, false, readString), params.approvalTools, error))
        return error;
    const auto parsed = cliAgentFromName(kind);
    if (!parsed)
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(where, "kind") + ": must be claude-code or codex, got \"" + kind + "\"");
    params.kind = *parsed;
    // Relative paths would resolve against whatever directory the agent runs in: never what was meant. A
    // cluster's pod names the image's CLI by its command (found on PATH) and has no model socket.
    if (params.program != cliCommandName(params.kind) && !params.program.starts_with('/'))
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(where, "program") + ": must be an absolute path inside the sandbox or \"" +
                             cliCommandName(params.kind) + "\", got \"" + params.program + "\"");
    if (!params.modelSocket.empty() && !params.modelSocket.starts_with('/'))
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(where, "model_socket") +
                             ": must be an absolute path inside the sandbox, or empty, got \"" +
                             params.modelSocket + "\"");
    for (const auto& dir : params.pathDirs)
        if (!dir.starts_with('/') || dir.find(':') != std::string::npos)
            return makeError(ErrorCode::InvalidArgument,
                             joinPath(where, "path_dirs") +
                                 ": each must be an absolute path without ':', got \"" + dir + "\"");
    return params;
}

json toJson(const TaskStartParams& params) {
    json presets = json::array();
    for (const auto& preset : params.presets)
        presets.push_back(preset);
    json out = {{"protocol_version", params.protocolVersion},
                {"task_id", params.taskId},
                {"prompt", params.prompt},
                {"presets", presets},
                {"overrides", params.overrides}};
    if (params.token)
        out["token"] = *params.token;
    const std::pair<const char*, const std::optional<std::string>*> facts[] = {
        {"sandbox", &params.sandbox}, {"network", &params.network}, {"provider", &params.provider},
        {"model", &params.model}};
    for (const auto& [key, fact] : facts)
        if (*fact)
            out[key] = **fact;
    if (params.reply)
        out["reply"] = *params.reply;
    if (params.attended)
        out["attended"] = true;
    if (params.cli)
        out["cli"] = toJson(*params.cli);
    return out;
}

Result<TaskStartParams> taskStartParamsFromJson(const json& value) {
    const std::string where = "task.start params";
    Error error;
    TaskStartParams params;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"protocol_version", "task_id", "prompt", "presets", "overrides", "token", "sandbox",
                                "network", "provider", "model", "reply", "attended", "cli"},
                        where),
              error) ||
        !take(getUint(value, "protocol_version", where), params.protocolVersion, error))
        return error;
    if (params.protocolVersion != kProtocolVersion)
        return makeError(ErrorCode::Unsupported,
                         where + ".protocol_version: the control plane speaks version " +
                             std::to_string(params.protocolVersion) + ", this agent speaks version " +
                             std::to_string(kProtocolVersion) +
                             "; install matching versions of warren and warren-agent");
    if (!take(getString(value, "task_id", where), params.taskId, error) ||
        !take(getString(value, "prompt", where), params.prompt, error) ||
        !take(getArray<std::string>(value, "presets", where, false, readString), params.presets, error))
        return error;
    if (value.contains("overrides") && !take(getObject(value, "overrides", where), params.overrides, error))
        return error;
    if (value.contains("token")) {
        std::string token;
        if (!take(getString(value, "token", where), token, error))
            return error;
        params.token = std::move(token);
    }
    if (!take(getOptionalString(value, "sandbox", where), params.sandbox, error) ||
        !take(getOptionalString(value, "network", where), params.network, error) ||
        !take(getOptionalString(value, "provider", where), params.provider, error) ||
        !take(getOptionalString(value, "model", where), params.model, error) ||
        !take(getOptionalString(value, "reply", where), params.reply, error))
        return error;
    if (value.contains("attended") && !take(getBool(value, "attended", where), params.attended, error))
        return error;
    if (value.contains("cli")) {
        auto cli = cliAgentParamsFromJson(value["cli"], joinPath(where, "cli"));
        if (!cli)
            return cli.error();
        params.cli = std::move(cli).value();
    }
    return params;
}

json toJson(const ControlParams& params) {
    json out = json::object();
    if (params.reason)
        out["reason"] = *params.reason;
    return out;
}

Result<ControlParams> controlParamsFromJson(const json& value) {
    const std::string where = "control params";
    Error error;
    ControlParams params;
    // A notification without params is as good as one with an empty object.
    if (value.is_null())
        return params;
    if (!take(requireObject(value, where), error) || !take(checkKeys(value, {"reason"}, where), error) ||
        !take(getOptionalString(value, "reason", where), params.reason, error))
        return error;
    return params;
}

} // namespace warren::protocol
