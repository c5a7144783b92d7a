#pragma once
// The closed sets event payloads carry by name (docs/PROTOCOL.md): each set an enum, each name written and
// read here only, so a misspelt reason is a compile error rather than a branch never taken.

#include <optional>
#include <string_view>

namespace warren::protocol {

// How a run ended: task_finished's and agent_finished's reason (the agent's ExitReason). Waiting: the
// model replied to the user in an attended run; a reply continues it.
enum class FinishReason { Finished, Failed, Cancelled, Paused, Guard, Waiting };
// What a guard event did: warned the model, or stopped the task.
enum class GuardAction { Warn, Stop };
// A log event's severity, least severe first (also the agent's log_level setting).
enum class LogLevel { Debug, Info, Warn, Error };

std::string_view toString(FinishReason reason); // "finished", "failed", "cancelled", "paused", "guard", "waiting"
std::string_view toString(GuardAction action);  // "warn", "stop"
std::string_view toString(LogLevel level);      // "debug", "info", "warn", "error"

// nullopt for a name of no member.
std::optional<FinishReason> finishReasonFromName(std::string_view name);
std::optional<GuardAction> guardActionFromName(std::string_view name);
std::optional<LogLevel> logLevelFromName(std::string_view name); // "warning" reads as warn, as the faces always took it

} // namespace warren::protocol
