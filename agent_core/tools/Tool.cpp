#include "Tool.h"

namespace warren::agent {

std::string_view toString(FileChange change) {
    switch (change) {
    case FileChange::Created:
        return "created";
    case FileChange::Modified:
        return "modified";
    case FileChange::Deleted:
        return "deleted";
    }
    return "modified";
}

ToolOutcome failure(std::string message) {
    ToolOutcome outcome;
    outcome.ok = false;
    outcome.exitCode = 1;
    outcome.output = std::move(message);
    return outcome;
}

} // namespace warren::agent
