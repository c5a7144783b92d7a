#pragma once
// max_steps and token_budget: checked before each step and each model call, so a task never starts work
// it has no budget left for.

#include <cstdint>

namespace warren::agent {

enum class BudgetVerdict { Ok, Exhausted };

// usedTokens: input + output tokens so far. Exhausted once they reach the budget; budget 0 = none.
BudgetVerdict tokenBudgetVerdict(std::uint64_t usedTokens, std::uint64_t budget);

// step: the 1-based number of the step about to start. Exhausted for step max_steps + 1 and later.
BudgetVerdict stepsVerdict(std::uint64_t step, std::uint64_t maxSteps);

} // namespace warren::agent
