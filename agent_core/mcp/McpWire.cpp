#include "agent_core/mcp/McpWire.h"

#include "agent_core/process/OutputCap.h"
#include "agent_core/tools/ToolText.h"
#include "common/JsonFields.h"

#include <algorithm>
#include <array>

namespace warren::agent {

using json_fields::describeJson;
using json_fields::memberString;
using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 3> kSupportedVersions = {kMcpProtocolVersion, "2025-03-26",
                                                                "2024-11-05"};

// Bytes of a server's words (a name, a version, a mime type) kept in what the model or the user reads.
constexpr std::size_t kMaxNameBytes = 200;
constexpr std::size_t kMaxCursorBytes = 4096;

std::string shortened(std::string_view text) {
    return shortenLine(text, kMaxNameBytes);
}

std::string quotedText(std::string_view text) {
    return json(shortened(text)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string compact(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The size of what base64 text decodes to (whitespace ignored), for a line about an image or a blob.
std::size_t decodedSize(std::string_view base64) {
    std::size_t characters = 0;
    std::size_t padding = 0;
    for (const char c : base64) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        ++characters;
        padding = c == '=' ? padding + 1 : 0;
    }
    return characters / 4 * 3 + (characters % 4 ? characters % 4 - 1 : 0) - std::min<std::size_t>(padding, 2);
}

std::string sizeOf(const json& item, const char* key) {
    const auto data = item.find(key);
    if (data == item.end() || !data->is_string())
        return "no data";
    return std::to_string(decodedSize(data->get_ref<const std::string&>())) + " bytes";
}

std::string mimeTypeOf(const json& item) {
    const std::string type = memberString(item, "mimeType");
    return type.empty() ? "unknown type" : shortened(type);
}

std::string describeResource(const json& item) {
    const auto resource = item.find("resource");
    if (resource == item.end() || !resource->is_object())
        return "[embedded resource without a resource object]";
    const std::string uri = shortened(memberString(*resource, "uri"));
    if (const auto text = resource->find("text"); text != resource->end() && text->is_string())
        return "[resource " + uri + "]\n" + text->get<std::string>();
    return "[resource " + uri + ": " + mimeTypeOf(*resource) + ", " + sizeOf(*resource, "blob") + "]";
}

// One content item as the model reads it.
std::string describeContent(const json& item) {
    if (!item.is_object())
        return "[content item that is " + describeJson(item) + ", not an object]";
    const auto type = item.find("type");
    if (type == item.end() || !type->is_string())
        return "[content item without a type]";
    const std::string& kind = type->get_ref<const std::string&>();
    if (kind == "text") {
        const auto text = item.find("text");
        return text != item.end() && text->is_string() ? text->get<std::string>()
                                                       : "[text content without text]";
    }
    if (kind == "image" || kind == "audio")
        return "[" + kind + ": " + mimeTypeOf(item) + ", " + sizeOf(item, "data") + "]";
    if (kind == "resource_link") {
        const std::string name = memberString(item, "name");
        return "[resource link: " + shortened(memberString(item, "uri")) +
               (name.empty() ? "" : " (" + shortened(name) + ")") + "]";
    }
    if (kind == "resource")
        return describeResource(item);
    return "[content of type " + quotedText(kind) + "]";
}

// Whether a text item already holds the structured content (the spec asks servers to send both).
bool holdsAsText(const json& content, const json& structured) {
    if (!content.is_array())
        return false;
    return std::any_of(content.begin(), content.end(), [&](const json& item) {
        if (!item.is_object() || memberString(item, "type") != "text")
            return false;
        const auto parsed = json_fields::parseJson(memberString(item, "text"));
        return parsed && *parsed == structured;
    });
}

Result<McpToolSpec> readTool(const json& tool) {
    if (!tool.is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "a tool that is " + describeJson(tool) + ", not an object");
    const auto name = tool.find("name");
    if (name == tool.end() || !name->is_string() || name->get_ref<const std::string&>().empty())
        return makeError(ErrorCode::InvalidArgument, "a tool without a name");
    McpToolSpec spec;
    spec.name = name->get<std::string>();
    const std::string where = "tool " + quotedText(spec.name) + " skipped: ";
    const auto description = tool.find("description");
    if (description != tool.end() && description->is_string()) {
        spec.description = shortenLine(description->get_ref<const std::string&>(), kMaxToolDescriptionBytes);
    }
    const auto schema = tool.find("inputSchema");
    if (schema == tool.end())
        return makeError(ErrorCode::InvalidArgument, where + "it has no inputSchema");
    if (!schema->is_object() || memberString(*schema, "type") != "object")
        return makeError(ErrorCode::InvalidArgument,
                         where + "its inputSchema must be a JSON Schema of \"type\": \"object\", got " +
                             shortened(compact(*schema)));
    const std::size_t size = compact(*schema).size();
    if (size > kMaxInputSchemaBytes)
        return makeError(ErrorCode::InvalidArgument, where + "its inputSchema has " + std::to_string(size) +
                                                         " bytes, more than " +
                                                         std::to_string(kMaxInputSchemaBytes));
    spec.inputSchema = *schema;
    return spec;
}

} // namespace

bool isSupportedMcpVersion(std::string_view version) {
    return std::find(kSupportedVersions.begin(), kSupportedVersions.end(), version) !=
           kSupportedVersions.end();
}

protocol::Request initializeRequest(protocol::Id id) {
    return {std::move(id), "initialize",
            json{{"protocolVersion", kMcpProtocolVersion},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "warren-agent"}, {"version", WARREN_VERSION}}}}};
}

protocol::Notification initializedNotification() {
    return {"notifications/initialized", nullptr};
}

protocol::Request toolsListRequest(protocol::Id id, const std::optional<std::string>& cursor) {
    return {std::move(id), "tools/list", cursor ? json{{"cursor", *cursor}} : json::object()};
}

protocol::Request toolsCallRequest(protocol::Id id, const std::string& tool, const json& arguments) {
    return {std::move(id), "tools/call",
            json{{"name", tool}, {"arguments", arguments.is_object() ? arguments : json::object()}}};
}

protocol::Notification cancelledNotification(const protocol::Id& request, const std::string& reason) {
    return {"notifications/cancelled", json{{"requestId", protocol::idToJson(request)}, {"reason", reason}}};
}

protocol::Message answerServerRequest(const protocol::Request& request) {
    if (request.method == "ping")
        return protocol::Response{request.id, json::object()};
    return protocol::ErrorResponse{request.id,
                                   {protocol::rpc_error::kMethodNotFound,
                                    "warren-agent does not offer " + shortened(request.method),
                                    {}}};
}

Result<McpServerInfo> readInitializeResult(const json& result) {
    if (!result.is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "its initialize result is " + describeJson(result) + ", not an object");
    McpServerInfo info;
    info.protocolVersion = memberString(result, "protocolVersion");
    if (info.protocolVersion.empty())
        return makeError(ErrorCode::InvalidArgument, "its initialize result names no protocolVersion");
    if (!isSupportedMcpVersion(info.protocolVersion)) {
        std::string known;
        for (const auto version : kSupportedVersions)
            known += (known.empty() ? "" : ", ") + std::string(version);
        return makeError(ErrorCode::Unsupported, "it speaks MCP " + quotedText(info.protocolVersion) +
                                                     ", which warren-agent does not (it speaks " + known +
                                                     ")");
    }
    if (const auto server = result.find("serverInfo"); server != result.end() && server->is_object()) {
        info.name = shortened(memberString(*server, "name"));
        info.version = shortened(memberString(*server, "version"));
    }
    const auto capabilities = result.find("capabilities");
    info.offersTools =
        capabilities != result.end() && capabilities->is_object() && capabilities->contains("tools");
    return info;
}

Result<McpToolPage> readToolsListResult(const json& result) {
    const auto tools = result.is_object() ? result.find("tools") : result.end();
    if (!result.is_object() || tools == result.end() || !tools->is_array())
        return makeError(ErrorCode::InvalidArgument,
                         "its tools/list result has no \"tools\" array: " + shortened(compact(result)));
    McpToolPage page;
    for (const auto& tool : *tools) {
        auto spec = readTool(tool);
        if (spec)
            page.tools.push_back(std::move(spec).value());
        else
            page.skipped.push_back(spec.error().message);
    }
    if (const auto cursor = result.find("nextCursor"); cursor != result.end() && cursor->is_string()) {
        const std::string& text = cursor->get_ref<const std::string&>();
        if (text.size() > kMaxCursorBytes)
            page.skipped.push_back("the list's nextCursor has " + std::to_string(text.size()) +
                                   " bytes, more than " + std::to_string(kMaxCursorBytes) +
                                   ": its further pages are not read");
        else if (!text.empty())
            page.nextCursor = text;
    }
    return page;
}

std::optional<std::string> McpToolListing::add(McpToolPage page) {
    ++m_pages;
    std::size_t beyond = 0;
    for (auto& tool : page.tools) {
        const auto sameName = [&](const McpToolSpec& kept) {
            return kept.name == tool.name;
        };
        if (std::any_of(m_tools.begin(), m_tools.end(), sameName))
            m_skipped.push_back("tool " + quotedText(tool.name) + " is listed twice; the first is kept");
        else if (m_tools.size() == kMaxMcpTools)
            ++beyond;
        else
            m_tools.push_back(std::move(tool));
    }
    for (auto& message : page.skipped)
        m_skipped.push_back(std::move(message));
    if (beyond > 0) {
        m_skipped.push_back("more than " + std::to_string(kMaxMcpTools) +
                            " tools: the rest of the list is not offered");
        return std::nullopt;
    }
    if (!page.nextCursor)
        return std::nullopt;
    if (m_pages == kMaxMcpToolPages) {
        m_skipped.push_back("the list goes on past " + std::to_string(kMaxMcpToolPages) +
                            " pages: the tools of the rest are not offered");
        return std::nullopt;
    }
    return page.nextCursor;
}

McpCallText readToolsCallResult(const json& result, std::size_t limitBytes) {
    McpCallText out;
    OutputCap output(limitBytes);
    if (!result.is_object()) {
        out.isError = true;
        output.append("[the server's result is " + describeJson(result) + ", not an object]");
        out.text = output.text();
        return out;
    }
    out.isError = json_fields::memberBool(result, "isError");
    bool first = true;
    const auto add = [&](std::string_view piece) {
        if (!first)
            output.append("\n");
        first = false;
        output.append(piece);
    };
    const auto content = result.find("content");
    if (content != result.end() && content->is_array()) {
        std::size_t read = 0;
        for (const auto& item : *content) {
            if (read++ == kMaxContentItems) {
                add("[" + std::to_string(content->size() - kMaxContentItems) +
                    " more content items not shown]");
                break;
            }
            add(describeContent(item));
        }
    } else if (content != result.end() && !content->is_null()) {
        add("[content that is " + describeJson(*content) + ", not an array]");
    }
    if (const auto structured = result.find("structuredContent");
        structured != result.end() && !structured->is_null() &&
        !(content != result.end() && holdsAsText(*content, *structured)))
        add("[structured content] " + compact(*structured));
    if (first)
        add(out.isError ? "[the tool failed and said nothing]" : "[the tool returned no content]");
    out.text = output.text();
    out.truncated = output.truncated();
    return out;
}

} // namespace warren::agent
