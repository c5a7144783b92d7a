#include "agent_core/memory/HostMemoryBackend.h"

#include "agent_core/protocol/Methods.h"
#include "common/JsonFields.h"

#include <utility>

namespace warren::agent {

namespace {

Error malformed(const char* method, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument,
                     std::string(method) + ": the control plane's reply is malformed: " + why);
}

} // namespace

HostMemoryBackend::HostMemoryBackend(HostMemoryCall call) : m_call(std::move(call)) {}

Result<nlohmann::json> HostMemoryBackend::call(const char* method, const nlohmann::json& params) {
    auto result = m_call(method, params);
    if (!result)
        return makeError(result.error().code, std::string(method) + " failed: " + result.error().message);
    return result;
}

Result<std::optional<std::string>> HostMemoryBackend::get(const std::string& ns, const std::string& key) {
    const char* method = protocol::method::kMemoryGet;
    auto reply = call(method, protocol::toJson(protocol::MemoryGetParams{ns, key}));
    if (!reply)
        return reply.error();
    auto result = protocol::memoryGetResultFromJson(reply.value());
    if (!result)
        return malformed(method, result.error().message);
    return std::move(result->value);
}

Status HostMemoryBackend::put(const MemoryEntry& entry) {
    const char* method = protocol::method::kMemoryPut;
    auto reply = call(method, protocol::toJson(protocol::MemoryPutParams{entry.ns, entry.key, entry.value}));
    if (!reply)
        return reply.error();
    // The result is {}: anything else means the two sides disagree about the protocol.
    const std::string where = std::string(method) + " result";
    if (auto object = json_fields::requireObject(reply.value(), where); !object)
        return malformed(method, object.error().message);
    if (auto keys = json_fields::checkKeys(reply.value(), {}, where); !keys)
        return malformed(method, keys.error().message);
    return Ok{};
}

Result<std::vector<MemoryEntry>> HostMemoryBackend::search(std::string_view query, std::size_t limit,
                                                           bool ranked) {
    const char* method = protocol::method::kMemorySearch;
    protocol::MemorySearchParams params;
    params.query = std::string(query);
    params.limit = limit;
    params.ranked = ranked;
    auto reply = call(method, protocol::toJson(params));
    if (!reply)
        return reply.error();
    auto result = protocol::memorySearchResultFromJson(reply.value());
    if (!result)
        return malformed(method, result.error().message);
    std::vector<MemoryEntry> entries;
    for (auto& hit : result->hits) {
        if (entries.size() == limit)
            break;
        entries.push_back({std::move(hit.ns), std::move(hit.key), std::move(hit.value)});
    }
    return entries;
}

} // namespace warren::agent
