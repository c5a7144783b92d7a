#include "agent_core/tools/UpdatePlanTool.h"

#include "agent_core/tools/ToolArguments.h"

namespace warren::agent {

using nlohmann::json;
using protocol::PlanStatus;

namespace {

Error invalid(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, std::string(UpdatePlanTool::kName) + ": " + message);
}

std::optional<PlanStatus> statusFrom(const std::string& text) {
    for (const PlanStatus status : {PlanStatus::Pending, PlanStatus::InProgress, PlanStatus::Completed})
        if (text == protocol::toString(status))
            return status;
    return std::nullopt;
}

} // namespace

Result<protocol::PlanUpdatedData> readPlan(const json& arguments) {
    auto reader = ToolArguments::read(UpdatePlanTool::kName, arguments, {"plan", "explanation"});
    if (!reader)
        return reader.error();
    auto explanation = reader->optionalString("explanation");
    if (!explanation)
        return explanation.error();
    const auto plan = arguments.find("plan");
    if (plan == arguments.end() || plan->is_null())
        return invalid("missing required argument \"plan\"");
    if (!plan->is_array())
        return invalid("argument \"plan\" must be an array of {step, status}");
    if (plan->empty())
        return invalid("the plan has no steps; give at least one");
    if (plan->size() > UpdatePlanTool::kMaxSteps)
        return invalid("the plan has " + std::to_string(plan->size()) + " steps; keep it to " +
                       std::to_string(UpdatePlanTool::kMaxSteps) + " or fewer");
    protocol::PlanUpdatedData data;
    data.explanation = explanation->value_or("");
    std::size_t inProgress = 0;
    for (std::size_t i = 0; i < plan->size(); ++i) {
        const json& item = (*plan)[i];
        const std::string at = "plan[" + std::to_string(i) + "]";
        if (!item.is_object() || item.size() != 2 || !item.contains("step") || !item.contains("status"))
            return invalid(at + " must be an object with exactly \"step\" and \"status\"");
        if (!item["step"].is_string() || item["step"].get_ref<const std::string&>().empty())
            return invalid(at + ".step must be a non-empty string");
        if (item["step"].get_ref<const std::string&>().size() > UpdatePlanTool::kMaxStepBytes)
            return invalid(at + ".step is longer than " + std::to_string(UpdatePlanTool::kMaxStepBytes) +
                           " bytes; say it in one short sentence");
        const auto status = item["status"].is_string() ? statusFrom(item["status"].get<std::string>()) : std::nullopt;
        if (!status)
            return invalid(at + ".status must be \"pending\", \"in_progress\" or \"completed\", got " +
                           item["status"].dump());
        inProgress += *status == PlanStatus::InProgress;
        data.steps.push_back({item["step"].get<std::string>(), *status});
    }
    if (inProgress > 1)
        return invalid(std::to_string(inProgress) + " steps are in_progress; at most one step is in progress at a time");
    return data;
}

protocol::ToolSpec UpdatePlanTool::spec() {
    const json step{{"type", "object"},
                    {"properties",
                     {{"step", {{"type", "string"}, {"description", "One step, a short sentence"}}},
                      {"status", {{"type", "string"}, {"enum", {"pending", "in_progress", "completed"}}}}}},
                    {"required", {"step", "status"}},
                    {"additionalProperties", false}};
    return {std::string(kName),
            "Keep the developer informed of your plan for a task of several steps: send the whole plan each "
            "time a step starts or ends. At most one step is in_progress.",
            json{{"type", "object"},
                 {"properties",
                  {{"explanation", {{"type", "string"}, {"description", "Why the plan changed (optional)"}}},
                   {"plan", {{"type", "array"}, {"items", step}, {"description", "The steps, in order"}}}}},
                 {"required", {"plan"}},
                 {"additionalProperties", false}}};
}

ToolOutcome UpdatePlanTool::run(const json& arguments, const ToolEnv& env) {
    auto plan = readPlan(arguments);
    if (!plan)
        return failure(plan.error().message);
    if (env.onPlanUpdated)
        env.onPlanUpdated(*plan);
    std::size_t completed = 0;
    const protocol::PlanStep* current = nullptr;
    for (const auto& step : plan->steps) {
        completed += step.status == PlanStatus::Completed;
        if (step.status == PlanStatus::InProgress)
            current = &step;
    }
    ToolOutcome outcome;
    outcome.output = "plan updated: " + std::to_string(completed) + " of " + std::to_string(plan->steps.size()) +
                     " steps completed" + (current ? "; in progress: " + current->step : std::string());
    return outcome;
}

} // namespace warren::agent
