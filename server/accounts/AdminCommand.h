#pragma once
// `warrend admin`: the operator's commands on the account store (DESIGN.md §8). Parsing is pure
// (parseAdminArguments); runAdmin parses, opens the database, runs one command in one transaction and
// writes to the streams it is given, so the whole command is tested without a process.
//
//   warrend admin --database URL add-user NAME [--tenant T]   the new key, alone on stdout
//   warrend admin --database URL add-key NAME                  another key for NAME, alone on stdout
//   warrend admin --database URL revoke-key NAME|KEY-PREFIX    every key of NAME, or the one key
//   warrend admin --database URL list-users [--json]           names, tenants, key prefixes, quotas
//   warrend admin --database URL list-tenants [--json]         names, user counts, quotas
//   warrend admin --database URL set-quota --tenant T|--user NAME [--max-concurrent N] [--memory-mb N]
//       [--pids N] [--cpu-seconds N] [--timeout-sec N] [--file-size-mb N] [--tokens-per-month N]
//       [--clear LIMIT]...
//
// Exit codes: 0 done, 1 the command failed (the database, a taken name), 2 bad arguments (with usage).

#include "common/Result.h"
#include "server/accounts/AccountStore.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace warren::accounts {

struct AdminAddUser {
    std::string name;
    std::string tenant = "default";
};
struct AdminAddKey {
    std::string name;
};
struct AdminRevokeKey {
    std::string target; // a user's name or a key's prefix
};
struct AdminListUsers {
    bool json = false;
};
struct AdminListTenants {
    bool json = false;
};
struct AdminSetQuota {
    std::optional<std::string> tenant; // exactly one of tenant and user
    std::optional<std::string> user;
    std::vector<QuotaChange> changes;
};

using AdminAction =
    std::variant<AdminAddUser, AdminAddKey, AdminRevokeKey, AdminListUsers, AdminListTenants, AdminSetQuota>;

struct AdminRequest {
    std::string databaseUrl;
    AdminAction action;
};

// The usage text (also printed after a usage error).
std::string adminUsage();

// args: what follows "admin". A request, or an InvalidArgument error saying which argument and why.
// nullopt in the Result's value: --help was asked for.
Result<std::optional<AdminRequest>> parseAdminArguments(const std::vector<std::string>& args);

// The whole command: returns the exit code.
int runAdmin(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace warren::accounts
