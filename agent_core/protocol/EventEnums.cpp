#include "agent_core/protocol/EventEnums.h"

#include <array>
#include <utility>

namespace warren::protocol {

namespace {

constexpr std::array kFinishReasons{std::pair{FinishReason::Finished, "finished"},
                                    std::pair{FinishReason::Failed, "failed"},
                                    std::pair{FinishReason::Cancelled, "cancelled"},
                                    std::pair{FinishReason::Paused, "paused"},
                                    std::pair{FinishReason::Guard, "guard"},
                                    std::pair{FinishReason::Waiting, "waiting"}};
constexpr std::array kGuardActions{std::pair{GuardAction::Warn, "warn"}, std::pair{GuardAction::Stop, "stop"}};
constexpr std::array kLogLevels{std::pair{LogLevel::Debug, "debug"}, std::pair{LogLevel::Info, "info"},
                                std::pair{LogLevel::Warn, "warn"}, std::pair{LogLevel::Error, "error"}};

template <typename Enum, std::size_t N>
std::string_view nameIn(const std::array<std::pair<Enum, const char*>, N>& table, Enum value) {
    for (const auto& [member, name] : table)
        if (member == value)
            return name;
    return table.front().second;
}

template <typename Enum, std::size_t N>
std::optional<Enum> memberIn(const std::array<std::pair<Enum, const char*>, N>& table, std::string_view name) {
    for (const auto& [member, spelled] : table)
        if (name == spelled)
            return member;
    return std::nullopt;
}

} // namespace

std::string_view toString(FinishReason reason) {
    return nameIn(kFinishReasons, reason);
}

std::string_view toString(GuardAction action) {
    return nameIn(kGuardActions, action);
}

std::string_view toString(LogLevel level) {
    return nameIn(kLogLevels, level);
}

std::optional<FinishReason> finishReasonFromName(std::string_view name) {
    return memberIn(kFinishReasons, name);
}

std::optional<GuardAction> guardActionFromName(std::string_view name) {
    return memberIn(kGuardActions, name);
}

std::optional<LogLevel> logLevelFromName(std::string_view name) {
    if (name == "warning")
        return LogLevel::Warn;
    return memberIn(kLogLevels, name);
}

} // namespace warren::protocol
