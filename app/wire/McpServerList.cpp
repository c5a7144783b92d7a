#include "app/wire/McpServerList.h"

namespace warren::wire {

using nlohmann::json;

json McpServerList::toJson() const {
    json list = json::array();
    for (const auto& entry : servers)
        list.push_back({{"name", entry.name}, {"transport", entry.transport}, {"scope", entry.scope}});
    return {{"servers", list}};
}

} // namespace warren::wire
