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
//   warrend admin --database URL set-secret NAME --tenant T --host HOSTS [--header TEMPLATE] [--in-body]
//       --provider-key-secret FILE                             a secret for every user of T (value on stdin)
//   warrend admin --database URL delete-secret NAME --tenant T
//   warrend admin --database URL list-secrets --tenant T [--json]   names, hosts, headers: never a value
//   warrend admin --database URL set-mcp-servers --tenant T FILE   MCP servers for every user of T (.mcp.json)
//   warrend admin --database URL delete-mcp-servers --tenant T
//   warrend admin --database URL list-mcp-servers [--tenant T] [--json]   no value of an env or a header
//   warrend admin --database URL install-skills --tenant T --data-dir DIR FOLDER   skills for every user of T
//   warrend admin --database URL remove-skill NAME --tenant T --data-dir DIR
//   warrend admin --database URL list-skills --tenant T --data-dir DIR [--json]
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

// A secret bound to hosts for every user of a tenant (DESIGN §12): the operator's word, so its hosts may be
// inside the server's networks. Its value is read from the input stream, never from the command line.
struct AdminSetSecret {
    std::string tenant;
    std::string name;
    std::string hosts;
    std::string header;
    bool inBody = false;
    std::string sealFile; // --provider-key-secret: the file `warrend serve` is given
};
struct AdminDeleteSecret {
    std::string tenant;
    std::string name;
};
struct AdminListSecrets {
    std::string tenant;
    bool json = false;
};

// MCP servers for every user of a tenant (DESIGN §13): file is a .mcp.json, read when the command runs.
struct AdminSetMcpServers {
    std::string tenant;
    std::string file;
};
struct AdminDeleteMcpServers {
    std::string tenant;
};
struct AdminListMcpServers {
    std::optional<std::string> tenant; // nullopt: every tenant's
    bool json = false;
};

// Skills for every user of a tenant (DESIGN §13), in warrend's data directory (TenantSkillPacks).
struct AdminInstallSkills {
    std::string tenant;
    std::string dataDir;
    std::string source; // a folder of skill folders
};
struct AdminRemoveSkill {
    std::string tenant;
    std::string dataDir;
    std::string name;
};
struct AdminListSkills {
    std::string tenant;
    std::string dataDir;
    bool json = false;
};

using AdminAction = std::variant<AdminAddUser, AdminAddKey, AdminRevokeKey, AdminListUsers, AdminListTenants,
                                 AdminSetQuota, AdminSetSecret, AdminDeleteSecret, AdminListSecrets,
                                 AdminSetMcpServers, AdminDeleteMcpServers, AdminListMcpServers,
                                 AdminInstallSkills, AdminRemoveSkill, AdminListSkills>;

struct AdminRequest {
    std::string databaseUrl;
    AdminAction action;
};

// The usage text (also printed after a usage error).
std::string adminUsage();

// args: what follows "admin". A request, or an InvalidArgument error saying which argument and why.
// nullopt in the Result's value: --help was asked for.
Result<std::optional<AdminRequest>> parseAdminArguments(const std::vector<std::string>& args);

// The whole command: returns the exit code. in: where set-secret reads the value (one line).
int runAdmin(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

} // namespace warren::accounts
