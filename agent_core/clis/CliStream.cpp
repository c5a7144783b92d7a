#include "agent_core/clis/CliStream.h"

#include "common/Utf8.h"

namespace warren::agent {

std::string boundedText(const std::string& text, std::size_t limit, bool* truncated) {
    const bool cut = text.size() > limit;
    if (truncated)
        *truncated = cut;
    return cut ? std::string(utf8Prefix(text, limit)) : text;
}

} // namespace warren::agent
