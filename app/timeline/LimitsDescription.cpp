#include "app/timeline/LimitsDescription.h"

namespace warren::timeline {

std::string describeLimits(const protocol::LimitsAppliedData& data) {
    std::string out;
    for (const auto& [name, value] : data.limits) {
        if (!out.empty())
            out += ", ";
        out += name + " " + std::to_string(value);
        if (const auto by = data.decidedBy.find(name); by != data.decidedBy.end())
            out += " (" + by->second + ")";
    }
    return out.empty() ? "none" : out;
}

} // namespace warren::timeline
