#include "agent_core/context/MemoryGuard.h"

#include "common/FileText.h"

#include <limits>
#include <string>

namespace warren::agent {

namespace {

constexpr std::uint64_t kBytesPerKb = 1024;
constexpr std::uint64_t kBytesPerMb = 1024 * 1024;

// rssBytes > limitMb MiB, without overflowing for absurd limits.
bool above(std::uint64_t rssBytes, std::uint64_t limitMb) {
    if (limitMb > std::numeric_limits<std::uint64_t>::max() / kBytesPerMb)
        return false;
    return rssBytes > limitMb * kBytesPerMb;
}

} // namespace

std::optional<std::uint64_t> parseRssBytes(std::string_view status) {
    constexpr std::string_view kField = "VmRSS:";
    std::size_t lineStart = 0;
    while (lineStart < status.size()) {
        const auto lineEnd = std::min(status.find('\n', lineStart), status.size());
        auto line = status.substr(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;
        if (!line.starts_with(kField))
            continue;
        line.remove_prefix(kField.size());
        const auto digits = line.find_first_not_of(" \t");
        if (digits == std::string_view::npos)
            return std::nullopt;
        line.remove_prefix(digits);
        std::uint64_t kb = 0;
        std::size_t length = 0;
        for (; length < line.size() && line[length] >= '0' && line[length] <= '9'; ++length) {
            const auto digit = static_cast<std::uint64_t>(line[length] - '0');
            if (kb > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                return std::nullopt;
            kb = kb * 10 + digit;
        }
        line.remove_prefix(length);
        // The kernel always writes "kB"; anything else is not the format this reads.
        if (length == 0 || line.find_first_not_of(" \t") == std::string_view::npos ||
            line.substr(line.find_first_not_of(" \t")) != "kB")
            return std::nullopt;
        if (kb > std::numeric_limits<std::uint64_t>::max() / kBytesPerKb)
            return std::nullopt;
        return kb * kBytesPerKb;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> currentRssBytes() {
    const auto text = readFileText("/proc/self/status");
    if (!text)
        return std::nullopt;
    return parseRssBytes(*text);
}

MemoryVerdict memoryVerdict(std::uint64_t rssBytes, std::uint64_t thresholdMb, std::uint64_t maxMb,
                            bool alreadyShed) {
    const bool overMax = maxMb != 0 && above(rssBytes, maxMb);
    const bool overThreshold = thresholdMb != 0 && above(rssBytes, thresholdMb);
    if (overMax)
        return alreadyShed ? MemoryVerdict::Stop : MemoryVerdict::Shed;
    if (overThreshold && !alreadyShed)
        return MemoryVerdict::Shed;
    return MemoryVerdict::Ok;
}

} // namespace warren::agent
