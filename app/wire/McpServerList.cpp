#include "app/wire/McpServerList.h"

#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;

json McpServerList::toJson() const {
    json list = json::array();
    for (const auto& entry : servers)
        list.push_back({{"name", entry.name}, {"transport", entry.transport}, {"scope", entry.scope}});
    return {{"servers", list}};
}

McpServerList McpServerList::fromJson(const json& answer) {
    McpServerList list;
    if (!answer.is_object() || !answer.contains("servers") || !answer["servers"].is_array())
        return list;
    for (const json& entry : answer["servers"]) {
        if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
            continue;
        list.servers.push_back({entry["name"].get<std::string>(),
                                json_fields::memberString(entry, "transport"),
                                json_fields::memberString(entry, "scope")});
    }
    return list;
}

} // namespace warren::wire
