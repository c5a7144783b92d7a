#pragma once
// The messages of MCP (the Model Context Protocol, version 2025-06-18) that warren-agent exchanges with an
// MCP server, as JSON-RPC 2.0 (protocol/JsonRpc.h): the handshake, the tool list, a tool call, the answers
// the client owes to the server's own requests; and what the model reads of a call's result. A server is
// not trusted: every reader checks each type, never throws, and bounds what it keeps. Pure.

#include "agent_core/protocol/JsonRpc.h"
#include "common/Result.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// The version warren-agent asks for; a server may answer with an older one it speaks instead.
inline constexpr std::string_view kMcpProtocolVersion = "2025-06-18";
// The versions warren-agent speaks: the tools part is the same in each.
bool isSupportedMcpVersion(std::string_view version);

inline constexpr std::size_t kMaxMcpTools = 1000;    // of one server, over all pages of its list
inline constexpr std::size_t kMaxMcpToolPages = 100; // pages of one list followed
inline constexpr std::size_t kMaxToolDescriptionBytes = 2048;
inline constexpr std::size_t kMaxInputSchemaBytes = 64 * 1024; // as compact JSON
inline constexpr std::size_t kMaxContentItems = 1000;          // of one call's result read

protocol::Request initializeRequest(protocol::Id id);
protocol::Notification initializedNotification();
// cursor: the previous page's nextCursor; none for the first page.
protocol::Request toolsListRequest(protocol::Id id, const std::optional<std::string>& cursor);
protocol::Request toolsCallRequest(protocol::Id id, const std::string& tool, const nlohmann::json& arguments);
// The client gave up on a request (a stop, its deadline): the server may stop working on it.
protocol::Notification cancelledNotification(const protocol::Id& request, const std::string& reason);

// The answer owed to a request from the server: ping is answered {}, anything else "method not found"
// (warren-agent declares no capabilities: no sampling, roots or elicitation).
protocol::Message answerServerRequest(const protocol::Request& request);

struct McpServerInfo {
    std::string protocolVersion;
    std::string name;         // serverInfo.name, or ""
    std::string version;      // serverInfo.version, or ""
    bool offersTools = false; // capabilities.tools is there
};

// initialize's result; an error when it is not an object or names a version warren-agent does not speak.
Result<McpServerInfo> readInitializeResult(const nlohmann::json& result);

struct McpToolSpec {
    std::string name;           // the server's own name for it
    std::string description;    // at most about kMaxToolDescriptionBytes, the cut marked
    nlohmann::json inputSchema; // an object schema ("type": "object")
    friend bool operator==(const McpToolSpec&, const McpToolSpec&) = default;
};

struct McpToolPage {
    std::vector<McpToolSpec> tools;
    std::vector<std::string> skipped; // one message per tool left out, saying why
    std::optional<std::string> nextCursor;
};

// One page of tools/list's result; an error when it has no "tools" array. A tool without a name, or whose
// inputSchema is not an object schema of at most kMaxInputSchemaBytes, is skipped.
Result<McpToolPage> readToolsListResult(const nlohmann::json& result);

// The pages of one list gathered, up to kMaxMcpTools tools and kMaxMcpToolPages pages; a name seen twice
// keeps its first tool.
class McpToolListing {
public:
    // The cursor of the page to ask for next, or nullopt when the list is complete (or at a bound, which
    // skipped then says).
    std::optional<std::string> add(McpToolPage page);

    const std::vector<McpToolSpec>& tools() const { return m_tools; }
    const std::vector<std::string>& skipped() const { return m_skipped; }

private:
    std::vector<McpToolSpec> m_tools;
    std::vector<std::string> m_skipped;
    std::size_t m_pages = 0;
};

// What the model reads of a tools/call result: text content as it is; images and audio as a line naming
// the type and size (never the base64); resource links by uri and name; an embedded resource's text, or a
// blob's uri, type and size; structuredContent as compact JSON unless a text item already holds it; any
// other content by its type. isError: true makes the outcome a failure.
struct McpCallText {
    std::string text; // at most limitBytes
    bool isError = false;
    bool truncated = false;
    friend bool operator==(const McpCallText&, const McpCallText&) = default;
};
McpCallText readToolsCallResult(const nlohmann::json& result, std::size_t limitBytes);

} // namespace warren::agent
