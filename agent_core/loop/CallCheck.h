#pragma once
// A tool call checked against what the model was told before it runs: arguments that are not a JSON
// object, a tool the task does not have, a missing, unknown or mistyped argument. What is wrong is said
// in words the model can act on (the nearest tool or argument names for a near miss), and the loop hands
// it back as the call's result instead of running the call. Pure.

#include "agent_core/protocol/Methods.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// What is wrong with call for a model that was offered specs; nullopt when nothing is. Checks the
// subset of JSON Schema the tools use: type object, properties with type (string, integer, number,
// boolean, array, object), minimum, enum, required, additionalProperties false. A null value counts as an
// argument not given, as the tools read it.
std::optional<std::string> checkToolCall(const protocol::ToolCall& call, const std::vector<protocol::ToolSpec>& specs);

// Up to `count` of names nearest to `name` by edit distance (closest first, ties in the given order),
// only those close enough to be a plausible slip: within a third of the longer name, or one of the two
// contains the other.
std::vector<std::string> nearestNames(std::string_view name, const std::vector<std::string>& names,
                                      std::size_t count = 3);

} // namespace warren::agent
