#pragma once
// The labels a task's sandbox carries besides its task (warren.task): its owner's tenant and user, so that a
// cluster's policies, quotas and `kubectl get pods -l warren.tenant=acme` can tell the tenants' pods apart
// (containers on one host carry them too). An account name is used where it is a label value (at most 63
// letters, digits, '-', '_' and '.', starting and ending with a letter or digit), else its id ("tenant-7",
// "user-42"): account names allow 64 characters and a last '-'. Pure.

#include "server/accounts/AccountTypes.h"

#include <map>
#include <string>

namespace warren::server {

inline constexpr const char* kTenantLabel = "warren.tenant";
inline constexpr const char* kUserLabel = "warren.user";

std::map<std::string, std::string> sandboxLabels(const accounts::Account& owner);

} // namespace warren::server
