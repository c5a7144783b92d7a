#include "server/api/Quotas.h"

#include "app/metrics/EngineMetrics.h"
#include "app/store/Store.h"
#include "server/accounts/AccountStore.h"

namespace warren::server {

http::HttpResponse overQuotaResponse(control::EngineMetrics& metrics, const accounts::OverQuota& refused) {
    metrics.quotaRefused(std::string(accounts::limitInfo(refused.limit).key),
                         std::string(accounts::limitLevelName(refused.level)));
    if (refused.limit == accounts::LimitName::DiskMb) // no wait frees it: the message says what does
        return http::HttpResponse::error(429, "quota_exceeded", QString::fromStdString(refused.message()));
    return http::HttpResponse::error(
               429, "quota_exceeded",
               QString::fromStdString(refused.message() +
                                      "; retry when one of your tasks has ended, or ask the "
                                      "operator for a larger quota"))
        .withHeader("Retry-After", "30");
}

protocol::LimitsAppliedData limitsApplied(const accounts::EffectiveLimits& effective) {
    protocol::LimitsAppliedData out;
    for (const auto& info : accounts::allLimits()) {
        const auto& limit = effective.get(info.name);
        if (!info.sandbox || !limit.value)
            continue;
        const std::string key(info.key);
        out.limits[key] = *limit.value;
        out.decidedBy[key] = std::string(accounts::limitLevelName(limit.decidedBy));
    }
    return out;
}

Result<std::optional<accounts::OverQuota>> Quotas::monthIsSpent(const accounts::Account& caller) {
    return m_accounts.wouldExceedTokens(caller.userId, 1);
}

Result<Admission> Quotas::admit(const accounts::Account& caller, const TaskRequest& request,
                                const std::string& taskId) {
    Admission admission;
    auto spent = monthIsSpent(caller);
    if (!spent)
        return spent.error();
    if (*spent) {
        admission.refused = **spent;
        return admission;
    }
    auto quotas = m_accounts.quotas(caller.userId);
    if (!quotas)
        return quotas.error();
    const auto effective = accounts::effectiveLimits(request.limits, quotas->user, quotas->tenant);
    admission.limits = limitsApplied(effective);

    // What is left of the month bounds the task's budget (the user's count; the tenant's is checked above).
    admission.tokenBudget = request.body.tokenBudget;
    if (const auto& month = effective.get(accounts::LimitName::TokensPerMonth); month.value) {
        auto used = m_accounts.tokensUsed(caller.userId);
        if (!used)
            return used.error();
        const std::uint64_t left = *month.value > *used ? *month.value - *used : 0;
        admission.tokenBudget = admission.tokenBudget ? std::min(admission.tokenBudget, left) : left;
    }

    auto reservation = m_accounts.reserveTask(caller.userId, taskId);
    if (!reservation)
        return reservation.error();
    admission.refused = reservation->refused;
    return admission;
}

Result<std::optional<accounts::OverQuota>> Quotas::readmit(const accounts::Account& caller,
                                                           const std::string& taskId) {
    auto spent = monthIsSpent(caller);
    if (!spent || *spent)
        return spent;
    auto reservation = m_accounts.reserveTask(caller.userId, taskId);
    if (!reservation)
        return reservation.error();
    return reservation->refused;
}

Status Quotas::runEnded(const std::string& taskId) {
    auto task = m_store.task(taskId);
    if (!task)
        return task.error();
    if (*task) {
        const std::uint64_t tokens = (*task)->tokensIn + (*task)->tokensOut;
        if (auto counted = m_accounts.countTaskTokens(taskId, tokens); !counted)
            return counted;
    }
    return m_accounts.releaseTask(taskId);
}

Status Quotas::release(const std::string& taskId) {
    return m_accounts.releaseTask(taskId);
}

} // namespace warren::server
