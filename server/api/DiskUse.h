#pragma once
// disk_mb (Limits.h): what a user's files take on the server (their uploads, their tasks' workspaces, task
// files and scripts) against the smallest of the user's and the tenant's quota that is set, checked with what
// a new upload or a new task's workspace would add, before it is extracted or copied. Measured on a DiskWork
// worker each time (the trees' metadata, no file is read), so what a retention period removed, or another
// replica wrote, counts at once. When no disk_mb binds the user, nothing is measured.

#include "common/Result.h"
#include "server/accounts/AccountTypes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::server {

struct ServerParts;

struct DiskBudget {
    accounts::LimitLevel level = accounts::LimitLevel::None;
    std::uint64_t limitMb = 0;
    std::vector<std::string> paths; // the user's trees, measured on the worker
};

// On the event loop: the caller's budget; nullopt when no disk_mb binds them.
Result<std::optional<DiskBudget>> diskBudget(ServerParts& parts, const accounts::Account& caller);

// On a worker: what refuses, when the budget's trees and adding bytes take more than it.
Result<std::optional<accounts::OverQuota>> checkDisk(const DiskBudget& budget, std::uint64_t adding);

} // namespace warren::server
