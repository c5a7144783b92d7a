#pragma once
// update_plan {plan, explanation?}: the model's plan for the task, whole each time: its steps in order,
// each pending, in_progress or completed, at most one in progress. It changes nothing in the workspace;
// the plan becomes a plan_updated event the user watches (the window's timeline, `warren run`'s live
// view), and the model reads back a one-line tally.

#include "agent_core/tools/Tool.h"

#include <string_view>

namespace warren::agent {

// The arguments read into the event's data, or what is wrong with them, for the model (pure).
Result<protocol::PlanUpdatedData> readPlan(const nlohmann::json& arguments);

class UpdatePlanTool : public Tool {
public:
    static constexpr std::string_view kName = "update_plan";
    static constexpr std::size_t kMaxSteps = 50;
    static constexpr std::size_t kMaxStepBytes = 500;

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
};

} // namespace warren::agent
