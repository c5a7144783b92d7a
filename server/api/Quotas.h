#pragma once
// The server's quotas at the moment they apply: a task is admitted with its effective sandbox limits (the
// smallest of request, user and tenant, each saying who decided it; the task's first event), a token
// budget no larger than what is left of the month, and a concurrent-task reservation held until its run
// ends (released then; taken again by resume). A finished run's tokens are added to its owner's month.
// Never pauses or stops anyone else's task.

#include "agent_core/protocol/EventPayloads.h"
#include "common/Result.h"
#include "server/accounts/AccountTypes.h"
#include "server/api/TaskRequest.h"
#include "server/http/HttpResponse.h"

#include <cstdint>
#include <optional>
#include <string>

namespace warren::control {
class EngineMetrics;
class Store;
} // namespace warren::control
namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

struct Admission {
    std::optional<accounts::OverQuota> refused; // set: nothing was reserved
    protocol::LimitsAppliedData limits;
    std::uint64_t tokenBudget = 0; // 0: none
};

// The 429 of a quota that refused, counted by the limit and its level. A limit of a month or of tasks at once
// says when to retry (Retry-After); disk_mb, what frees it.
http::HttpResponse overQuotaResponse(control::EngineMetrics& metrics, const accounts::OverQuota& refused);

// Pure: the sandbox limits of effective limits as the limits_applied event holds them.
protocol::LimitsAppliedData limitsApplied(const accounts::EffectiveLimits& effective);

class Quotas {
public:
    Quotas(accounts::AccountStore& accounts, control::Store& store) : m_accounts(accounts), m_store(store) {}

    // Reserves a slot for taskId (not yet created) and works out its limits and budget.
    Result<Admission> admit(const accounts::Account& caller, const TaskRequest& request,
                            const std::string& taskId);
    // Before a resume: the slot again (the month's tokens are checked too).
    Result<std::optional<accounts::OverQuota>> readmit(const accounts::Account& caller,
                                                       const std::string& taskId);
    // The task's run ended (it is no longer active): its slot goes back and its tokens are counted.
    Status runEnded(const std::string& taskId);
    Status release(const std::string& taskId); // a task that could not be created after admit

private:
    Result<std::optional<accounts::OverQuota>> monthIsSpent(const accounts::Account& caller);

    accounts::AccountStore& m_accounts;
    control::Store& m_store;
};

} // namespace warren::server
