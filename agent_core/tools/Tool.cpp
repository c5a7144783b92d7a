#include "agent_core/tools/Tool.h"

namespace warren::agent {

ToolOutcome failure(std::string message) {
    ToolOutcome outcome;
    outcome.ok = false;
    outcome.exitCode = 1;
    outcome.output = std::move(message);
    return outcome;
}

} // namespace warren::agent
