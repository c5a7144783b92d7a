#include "agent_core/loop/AgentSeat.h"

namespace warren::agent {

SeatRules seatRules(const AgentSeat& seat) {
    if (!seat.isSubAgent())
        return {};
    SeatRules rules;
    rules.ownsTeam = false;
    rules.numbersEvents = false;
    rules.usesMemory = false;
    rules.usesMcpServers = false;
    rules.firesHooks = false;
    rules.announcesTask = false;
    rules.mayWaitForUser = false;
    rules.keepsModelState = false;
    rules.holdsClaimsUntilEnd = true;
    rules.readsInbox = true;
    rules.namesItself = true;
    return rules;
}

} // namespace warren::agent
