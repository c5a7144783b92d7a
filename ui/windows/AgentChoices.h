#pragma once
// The agents Settings and the new-task bar both offer: Warren's own, and the CLIs people already use, run
// in the task's sandbox (DESIGN §11). The item data is the agent's name (protocol::agentKindName). A CLI
// that is not installed is still offered: the submission says what to install (the control plane decides,
// and a server's install is not this machine's).

#include "agent_core/protocol/AgentKind.h"

class QComboBox;
class QString;

namespace warren::ui {

void fillAgents(QComboBox* box, const QString& current);
protocol::AgentKind chosenAgent(const QComboBox* box); // of a box fillAgents() filled

} // namespace warren::ui
