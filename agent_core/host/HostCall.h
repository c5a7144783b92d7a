#pragma once
// One request to the control plane, answered or failed by the deadline (HostChannel::call). The parts that
// need the control plane (the model, the host memory backend, approvals) take this rather than the
// channel, so they can be driven by a fake in tests.

#include "agent_core/tools/Cancellation.h"
#include "common/Result.h"

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::agent {

// stop: the asking agent's own stop request (a sub-agent's, which close_agent raises), also watched; null:
// only the task's.
using HostCall = std::function<Result<nlohmann::json>(const std::string& method, nlohmann::json params,
                                                      std::chrono::steady_clock::time_point deadline,
                                                      const Cancellation* stop)>;

} // namespace warren::agent
