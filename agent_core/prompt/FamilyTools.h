#pragma once
// Which of the enabled tools a model is offered, by its family: each family edits files in the shape it
// was trained on. OpenAI's models write patches (apply_patch), Anthropic's and the rest replace exact
// text (edit_file). When both are enabled the family's own is offered and the other left out, so the model
// sees one way to edit; when the tools setting enables only one of them, that one is offered to any model.
// Pure.

#include "agent_core/prompt/SystemPrompt.h"

#include <string>
#include <vector>

namespace warren::agent {

// enabled: the tools setting, in its order; the result keeps the order.
std::vector<std::string> toolsForFamily(std::vector<std::string> enabled, ModelFamily family);

} // namespace warren::agent
