#include "agent_core/context/Budget.h"

namespace warren::agent {

BudgetVerdict tokenBudgetVerdict(std::uint64_t usedTokens, std::uint64_t budget) {
    return budget != 0 && usedTokens >= budget ? BudgetVerdict::Exhausted : BudgetVerdict::Ok;
}

BudgetVerdict stepsVerdict(std::uint64_t step, std::uint64_t maxSteps) {
    return step > maxSteps ? BudgetVerdict::Exhausted : BudgetVerdict::Ok;
}

} // namespace warren::agent
