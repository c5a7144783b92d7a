#include "server/api/DiskUse.h"

#include "common/TreeSize.h"
#include "server/accounts/AccountStore.h"
#include "server/api/ServerParts.h"

namespace warren::server {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

} // namespace

Result<std::optional<DiskBudget>> diskBudget(ServerParts& parts, const accounts::Account& caller) {
    auto quotas = parts.accounts.quotas(caller.userId);
    if (!quotas)
        return quotas.error();
    const auto effective = accounts::effectiveLimits({}, quotas->user, quotas->tenant);
    const auto& limit = effective.get(accounts::LimitName::DiskMb);
    if (!limit.value)
        return std::optional<DiskBudget>();
    DiskBudget budget{limit.decidedBy, *limit.value, {}};
    auto uploads = parts.accounts.uploadDirectories(caller.userId);
    if (!uploads)
        return uploads.error();
    budget.paths = std::move(*uploads);
    auto tasks = parts.accounts.taskIds(caller.userId);
    if (!tasks)
        return tasks.error();
    for (const auto& id : *tasks) {
        budget.paths.push_back(parts.paths.workspace(id));
        budget.paths.push_back(parts.paths.root + "/tasks/" + id);
        budget.paths.push_back(parts.paths.script(id));
    }
    return std::optional<DiskBudget>(std::move(budget));
}

Result<std::optional<accounts::OverQuota>> checkDisk(const DiskBudget& budget, std::uint64_t adding) {
    std::uint64_t used = adding;
    for (const auto& path : budget.paths) {
        auto bytes = files::treeBytes(path);
        if (!bytes)
            return bytes.error();
        used += *bytes;
    }
    const std::uint64_t usedMb = used / kMiB + (used % kMiB ? 1 : 0); // a byte over is over
    if (usedMb <= budget.limitMb)
        return std::optional<accounts::OverQuota>();
    return std::optional<accounts::OverQuota>(
        accounts::OverQuota{budget.level, accounts::LimitName::DiskMb, budget.limitMb, usedMb});
}

} // namespace warren::server
