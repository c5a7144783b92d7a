#include "server/accounts/AdminCommand.h"

#include "common/FileText.h"
#include "server/accounts/ProviderKeySecret.h"
#include "server/accounts/TenantMcpServers.h"
#include "server/accounts/TenantSkillPacks.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <istream>
#include <ostream>
#include <set>

namespace warren::accounts {

namespace {

Error usageError(std::string message) {
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

const LimitInfo* limitByFlag(std::string_view flag) {
    for (const LimitInfo& info : allLimits())
        if (info.flag == flag)
            return &info;
    return nullptr;
}

// --clear's value: the option's name with or without its dashes, or the JSON key.
const LimitInfo* limitByClearName(std::string_view name) {
    for (const LimitInfo& info : allLimits())
        if (info.key == name || info.flag == name || info.flag.substr(2) == name)
            return &info;
    return nullptr;
}

std::string limitFlags() {
    std::string flags;
    for (const LimitInfo& info : allLimits())
        flags += (flags.empty() ? "" : ", ") + std::string(info.flag);
    return flags;
}

Result<std::uint64_t> parseCount(const std::string& flag, const std::string& text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || text.front() == '+' || error != std::errc() || end != text.data() + text.size())
        return usageError(flag + " takes a whole number, got \"" + text + "\"");
    return value;
}

// What the command line said, before it is checked against the command.
struct RawArguments {
    std::optional<std::string> database, tenant, user, command, operand, host, header, sealFile, dataDir;
    bool json = false;
    bool inBody = false;
    std::vector<QuotaChange> changes;
    std::set<std::string> options; // every option given, for "does not apply to"
};

Status addLimitChange(RawArguments& raw, const LimitInfo& info, std::optional<std::uint64_t> value) {
    for (const QuotaChange& change : raw.changes)
        if (change.limit == info.name)
            return usageError(std::string(info.flag) + " is given twice (set or --clear each limit once)");
    if (value)
        if (auto status = checkLimitValue(info.name, *value, std::string(info.flag)); !status)
            return status.error();
    raw.changes.push_back(QuotaChange{info.name, value});
    return Ok{};
}

Status readOption(RawArguments& raw, const std::string& name, const std::string& value) {
    if (name == "--database")
        raw.database = value;
    else if (name == "--tenant")
        raw.tenant = value;
    else if (name == "--user")
        raw.user = value;
    else if (name == "--host")
        raw.host = value;
    else if (name == "--header")
        raw.header = value;
    else if (name == "--provider-key-secret")
        raw.sealFile = value;
    else if (name == "--data-dir")
        raw.dataDir = value;
    else if (name == "--clear") {
        const LimitInfo* info = limitByClearName(value);
        if (!info)
            return usageError("--clear takes a limit's name (" + limitFlags() + "), got \"" + value + "\"");
        return addLimitChange(raw, *info, std::nullopt);
    } else if (const LimitInfo* info = limitByFlag(name)) {
        auto number = parseCount(name, value);
        if (!number)
            return number.error();
        return addLimitChange(raw, *info, *number);
    }
    return Ok{};
}

bool takesValue(const std::string& name) {
    return name == "--database" || name == "--tenant" || name == "--user" || name == "--clear" ||
           name == "--host" || name == "--header" || name == "--provider-key-secret" || name == "--data-dir" ||
           limitByFlag(name) != nullptr;
}

Result<RawArguments> readArguments(const std::vector<std::string>& args) {
    RawArguments raw;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (!arg.starts_with("--") || arg == "--") {
            std::optional<std::string>& slot = !raw.command ? raw.command : raw.operand;
            if (raw.command && raw.operand)
                return usageError("unexpected argument \"" + arg + "\"");
            slot = arg;
            continue;
        }
        const auto equals = arg.find('=');
        const std::string name = arg.substr(0, equals);
        if (name == "--json" || name == "--in-body") {
            if (equals != std::string::npos)
                return usageError(name + " takes no value");
            (name == "--json" ? raw.json : raw.inBody) = true;
        } else if (!takesValue(name)) {
            return usageError("unknown option " + name + " (options: --database, --tenant, --user, --json, " +
                              limitFlags() + ", --clear, --host, --header, --in-body, --provider-key-secret, --data-dir)");
        } else {
            if (name != "--clear" && raw.options.count(name))
                return usageError(name + " is given twice");
            std::string value;
            if (equals != std::string::npos)
                value = arg.substr(equals + 1);
            else if (i + 1 < args.size())
                value = args[++i];
            else
                return usageError(name + " needs a value");
            if (auto status = readOption(raw, name, value); !status)
                return status.error();
        }
        raw.options.insert(limitByFlag(name) ? "a limit" : name);
    }
    return raw;
}

// Every option given is one the command takes.
Status checkOptions(const RawArguments& raw, const std::string& command, std::set<std::string> allowed) {
    allowed.insert("--database");
    for (const std::string& option : raw.options)
        if (!allowed.count(option))
            return usageError((option == "a limit" ? std::string("limits") : option) + " do" +
                              (option == "a limit" ? "" : "es") + " not apply to " + command);
    return Ok{};
}

Status requireOperand(const RawArguments& raw, const std::string& command, const std::string& what) {
    if (!raw.operand)
        return usageError(command + " needs " + what);
    return Ok{};
}

// set-secret, delete-secret, list-secrets: a tenant's secrets.
Result<AdminAction> secretAction(const RawArguments& raw) {
    const std::string& command = *raw.command;
    if (!raw.tenant)
        return usageError(command + " needs --tenant T: secrets set here are for every user of a tenant (a user "
                                    "stores their own with PUT /v1/me/secrets/NAME)");
    if (command == "list-secrets") {
        if (auto s = checkOptions(raw, command, {"--tenant", "--json"}); !s)
            return s.error();
        if (raw.operand)
            return usageError(command + " takes no argument, got \"" + *raw.operand + "\"");
        return AdminAction(AdminListSecrets{*raw.tenant, raw.json});
    }
    if (auto s = requireOperand(raw, command, "the secret's NAME"); !s)
        return s.error();
    if (command == "delete-secret") {
        if (auto s = checkOptions(raw, command, {"--tenant"}); !s)
            return s.error();
        return AdminAction(AdminDeleteSecret{*raw.tenant, *raw.operand});
    }
    if (auto s = checkOptions(raw, command, {"--tenant", "--host", "--header", "--in-body", "--provider-key-secret"}); !s)
        return s.error();
    if (!raw.host)
        return usageError("set-secret needs --host HOST[,HOST...]: the hosts the secret may be sent to");
    if (!raw.sealFile)
        return usageError("set-secret needs --provider-key-secret FILE, the file warrend serve seals users' keys "
                          "with: the secret is stored sealed with it");
    return AdminAction(
        AdminSetSecret{*raw.tenant, *raw.operand, *raw.host, raw.header.value_or(""), raw.inBody, *raw.sealFile});
}

// set-mcp-servers, delete-mcp-servers, list-mcp-servers: a tenant's MCP servers.
Result<AdminAction> mcpServersAction(const RawArguments& raw) {
    const std::string& command = *raw.command;
    if (command == "list-mcp-servers") {
        if (auto s = checkOptions(raw, command, {"--tenant", "--json"}); !s)
            return s.error();
        if (raw.operand)
            return usageError(command + " takes no argument, got \"" + *raw.operand + "\"");
        return AdminAction(AdminListMcpServers{raw.tenant, raw.json});
    }
    if (!raw.tenant)
        return usageError(command + " needs --tenant T: the servers are for every user of a tenant");
    if (auto s = checkOptions(raw, command, {"--tenant"}); !s)
        return s.error();
    if (command == "delete-mcp-servers") {
        if (raw.operand)
            return usageError(command + " takes no argument, got \"" + *raw.operand + "\"");
        return AdminAction(AdminDeleteMcpServers{*raw.tenant});
    }
    if (auto s = requireOperand(raw, command, "a .mcp.json FILE ({\"mcpServers\": {NAME: {...}}})"); !s)
        return s.error();
    return AdminAction(AdminSetMcpServers{*raw.tenant, *raw.operand});
}

// install-skills, remove-skill, list-skills: a tenant's skill packs, in warrend's data directory.
Result<AdminAction> skillsAction(const RawArguments& raw) {
    const std::string& command = *raw.command;
    if (!raw.tenant)
        return usageError(command + " needs --tenant T: skills installed here are for every user of a tenant");
    if (!raw.dataDir)
        return usageError(command + " needs --data-dir DIR, the directory warrend serve is given");
    if (auto tenant = checkAccountName("tenant", *raw.tenant); !tenant)
        return tenant.error();
    if (command == "list-skills") {
        if (auto s = checkOptions(raw, command, {"--tenant", "--data-dir", "--json"}); !s)
            return s.error();
        if (raw.operand)
            return usageError(command + " takes no argument, got \"" + *raw.operand + "\"");
        return AdminAction(AdminListSkills{*raw.tenant, *raw.dataDir, raw.json});
    }
    if (auto s = checkOptions(raw, command, {"--tenant", "--data-dir"}); !s)
        return s.error();
    if (command == "remove-skill") {
        if (auto s = requireOperand(raw, command, "the skill's NAME"); !s)
            return s.error();
        return AdminAction(AdminRemoveSkill{*raw.tenant, *raw.dataDir, *raw.operand});
    }
    if (auto s = requireOperand(raw, command, "a FOLDER of skill folders (each NAME/SKILL.md)"); !s)
        return s.error();
    return AdminAction(AdminInstallSkills{*raw.tenant, *raw.dataDir, *raw.operand});
}

Result<AdminAction> buildAction(const RawArguments& raw) {
    const std::string& command = *raw.command;
    if (command == "add-user") {
        if (auto s = checkOptions(raw, command, {"--tenant"}); !s)
            return s.error();
        if (auto s = requireOperand(raw, command, "the new user's NAME"); !s)
            return s.error();
        AdminAddUser action{*raw.operand, raw.tenant.value_or("default")};
        if (auto s = checkAccountName("user", action.name); !s)
            return s.error();
        if (auto s = checkAccountName("tenant", action.tenant); !s)
            return s.error();
        return AdminAction(action);
    }
    if (command == "add-key" || command == "revoke-key") {
        if (auto s = checkOptions(raw, command, {}); !s)
            return s.error();
        if (command == "add-key") {
            if (auto s = requireOperand(raw, command, "the user's NAME"); !s)
                return s.error();
            return AdminAction(AdminAddKey{*raw.operand});
        }
        if (auto s = requireOperand(raw, command, "a user's NAME (all their keys) or a KEY-PREFIX (one key)");
            !s)
            return s.error();
        return AdminAction(AdminRevokeKey{*raw.operand});
    }
    if (command == "list-users" || command == "list-tenants" || command == "set-quota") {
        if (raw.operand)
            return usageError(command + " takes no argument, got \"" + *raw.operand + "\"");
        if (command == "list-users") {
            if (auto s = checkOptions(raw, command, {"--json"}); !s)
                return s.error();
            return AdminAction(AdminListUsers{raw.json});
        }
        if (command == "list-tenants") {
            if (auto s = checkOptions(raw, command, {"--json"}); !s)
                return s.error();
            return AdminAction(AdminListTenants{raw.json});
        }
        if (auto s = checkOptions(raw, command, {"--tenant", "--user", "a limit", "--clear"}); !s)
            return s.error();
        if (raw.tenant.has_value() == raw.user.has_value())
            return usageError("set-quota needs exactly one of --tenant T and --user NAME");
        if (raw.changes.empty())
            return usageError("set-quota needs at least one limit to set (" + limitFlags() + ") or --clear");
        return AdminAction(AdminSetQuota{raw.tenant, raw.user, raw.changes});
    }
    if (command == "set-secret" || command == "delete-secret" || command == "list-secrets")
        return secretAction(raw);
    if (command == "set-mcp-servers" || command == "delete-mcp-servers" || command == "list-mcp-servers")
        return mcpServersAction(raw);
    if (command == "install-skills" || command == "remove-skill" || command == "list-skills")
        return skillsAction(raw);
    return usageError("unknown command \"" + command + "\" (commands: add-user, add-key, revoke-key, list-users, "
                      "list-tenants, set-quota, set-secret, delete-secret, list-secrets, set-mcp-servers, "
                      "delete-mcp-servers, list-mcp-servers, install-skills, remove-skill, list-skills)");
}

} // namespace

std::string adminUsage() {
    return "usage: warrend admin --database URL COMMAND\n"
           "  add-user NAME [--tenant T]      add a user (and tenant T, default \"default\");\n"
           "                                  prints the user's API key, shown only this once\n"
           "  add-key NAME                    one more API key for NAME, printed once\n"
           "  revoke-key NAME|KEY-PREFIX      revoke every key of NAME, or the key list-users shows\n"
           "  list-users [--json]             users, tenants, key prefixes and quotas (no secrets)\n"
           "  list-tenants [--json]           tenants, their number of users and their quotas\n"
           "  set-quota --tenant T|--user NAME [LIMIT N]... [--clear LIMIT]...\n"
           "                                  set limits; a user's narrow the tenant's; cleared limits\n"
           "                                  no longer bind at that level\n"
           "  set-secret NAME --tenant T --host HOST[,HOST...] [--header TEMPLATE] [--in-body]\n"
           "             --provider-key-secret FILE\n"
           "                                  a secret for every user of T, its value on stdin; a task\n"
           "                                  uses its owner's own secret of a name before this one\n"
           "  delete-secret NAME --tenant T   remove it\n"
           "  list-secrets --tenant T [--json]  the tenant's secrets' names, hosts and headers\n"
           "  set-mcp-servers --tenant T FILE MCP servers for every user of T, FILE a .mcp.json\n"
           "                                  ({\"mcpServers\": {...}}), replacing T's; a task's own\n"
           "                                  server of a name is started before T's\n"
           "  delete-mcp-servers --tenant T   remove them\n"
           "  list-mcp-servers [--tenant T] [--json]  the tenants' MCP servers\n"
           "  install-skills --tenant T --data-dir DIR FOLDER\n"
           "                                  copy FOLDER's skills (NAME/SKILL.md) for every user of T,\n"
           "                                  each replacing T's skill of that name; running tasks see\n"
           "                                  them at their next step\n"
           "  remove-skill NAME --tenant T --data-dir DIR   remove one\n"
           "  list-skills --tenant T --data-dir DIR [--json]  T's installed skills\n"
           "limits: --max-concurrent N (tasks at once), --memory-mb N, --pids N, --cpu-seconds N\n"
           "        (per process), --timeout-sec N (wall clock), --file-size-mb N, --tokens-per-month N\n"
           "URL: postgresql://USER@HOST:PORT/DATABASE or a libpq conninfo string; keep a password in\n"
           "     ~/.pgpass or PGPASSWORD rather than in the URL, which other users see in ps\n";
}

Result<std::optional<AdminRequest>> parseAdminArguments(const std::vector<std::string>& args) {
    for (const std::string& arg : args)
        if (arg == "--help" || arg == "-h")
            return std::optional<AdminRequest>();
    auto raw = readArguments(args);
    if (!raw)
        return raw.error();
    if (!raw->command)
        return usageError("a command is missing");
    if (!raw->database || raw->database->empty())
        return usageError("--database URL is missing (postgresql://USER@HOST:PORT/DATABASE)");
    auto action = buildAction(*raw);
    if (!action)
        return action.error();
    return std::optional<AdminRequest>(AdminRequest{*raw->database, std::move(action).value()});
}

namespace {

std::string quotaText(const Limits& limits) {
    std::string text;
    for (const LimitInfo& info : allLimits())
        if (const auto value = limits.get(info.name))
            text += (text.empty() ? "" : ",") + std::string(info.key) + "=" + std::to_string(*value);
    return text.empty() ? "-" : text;
}

void printUsers(const std::vector<UserInfo>& users, bool asJson, std::ostream& out) {
    if (asJson) {
        nlohmann::json list = nlohmann::json::array();
        for (const UserInfo& user : users) {
            nlohmann::json keys = nlohmann::json::array();
            for (const KeyInfo& key : user.keys)
                keys.push_back({{"prefix", key.displayPrefix},
                                {"created_at", key.createdAt},
                                {"revoked_at", key.revokedAt ? nlohmann::json(*key.revokedAt) : nullptr}});
            list.push_back({{"name", user.name},
                            {"tenant", user.tenant},
                            {"created_at", user.createdAt},
                            {"keys", keys},
                            {"quota", limitsToJson(user.quota)}});
        }
        out << list.dump(2) << "\n";
        return;
    }
    out << "NAME\tTENANT\tCREATED\tKEYS\tQUOTA\n";
    for (const UserInfo& user : users) {
        std::string keys;
        for (const KeyInfo& key : user.keys)
            keys += (keys.empty() ? "" : ",") + key.displayPrefix + (key.revokedAt ? "(revoked)" : "");
        out << user.name << "\t" << user.tenant << "\t" << user.createdAt << "\t"
            << (keys.empty() ? "-" : keys) << "\t" << quotaText(user.quota) << "\n";
    }
}

void printTenants(const std::vector<TenantInfo>& tenants, bool asJson, std::ostream& out) {
    if (asJson) {
        nlohmann::json list = nlohmann::json::array();
        for (const TenantInfo& tenant : tenants)
            list.push_back({{"name", tenant.name},
                            {"created_at", tenant.createdAt},
                            {"users", tenant.users},
                            {"quota", limitsToJson(tenant.quota)}});
        out << list.dump(2) << "\n";
        return;
    }
    out << "NAME\tCREATED\tUSERS\tQUOTA\n";
    for (const TenantInfo& tenant : tenants)
        out << tenant.name << "\t" << tenant.createdAt << "\t" << tenant.users << "\t"
            << quotaText(tenant.quota) << "\n";
}

std::string changesText(const std::vector<QuotaChange>& changes) {
    std::string text;
    for (const QuotaChange& change : changes)
        text += (text.empty() ? "" : ", ") + std::string(limitInfo(change.limit).key) + " " +
                (change.value ? std::to_string(*change.value) : std::string("cleared"));
    return text;
}

void printSecrets(const std::vector<HostSecretInfo>& secrets, bool asJson, std::ostream& out) {
    if (asJson) {
        nlohmann::json list = nlohmann::json::array();
        for (const HostSecretInfo& secret : secrets)
            list.push_back({{"name", secret.name},
                            {"hosts", secret.hosts},
                            {"header", secret.header},
                            {"in_body", secret.inBody},
                            {"updated_at", secret.updatedAt}});
        out << list.dump(2) << "\n";
        return;
    }
    out << "NAME\tHOSTS\tHEADER\tBODIES\tUPDATED\n";
    for (const HostSecretInfo& secret : secrets)
        out << secret.name << "\t" << secret.hosts << "\t" << (secret.header.empty() ? "-" : secret.header) << "\t"
            << (secret.inBody ? "in bodies" : "headers only") << "\t" << secret.updatedAt << "\n";
}

// set-secret: the operator's file, then one line of in as the value. No message repeats the value.
Status setTenantSecret(AccountStore& store, const AdminSetSecret& set, std::istream& in, std::ostream& out) {
    auto seal = readProviderKeySecret(set.sealFile);
    if (!seal)
        return seal.error();
    std::string value;
    std::getline(in, value);
    while (!value.empty() && (value.back() == '\r' || value.back() == ' '))
        value.pop_back();
    if (value.empty())
        return makeError(ErrorCode::InvalidArgument, "set-secret " + set.name + ": no value on stdin");
    auto secret = control::makeHostSecret(set.name, set.hosts, set.header, std::move(value));
    if (!secret)
        return secret.error();
    secret->inBody = set.inBody;
    auto stored = store.setTenantHostSecret(set.tenant, *secret, *seal);
    if (!stored)
        return stored.error();
    out << "tenant " << set.tenant << ": secret " << stored->name << " for " << stored->hosts
        << "; a task of its users gets it with --secret " << stored->name << "\n";
    return Ok{};
}

// set-mcp-servers: the operator's file, read by the agent's reader before anything is stored.
Status setMcpServers(AccountStore& store, const AdminSetMcpServers& set, std::ostream& out) {
    auto text = readFileText(set.file);
    if (!text)
        return text.error();
    auto servers = readTenantMcpServers(*text);
    if (!servers)
        return makeError(ErrorCode::InvalidArgument, set.file + ": " + servers.error().message);
    if (auto stored = store.setTenantMcpServers(set.tenant, *servers); !stored)
        return stored;
    std::string names;
    for (const McpServerSummary& server : summarizeMcpServers(*servers))
        names += (names.empty() ? "" : ", ") + server.name + " (" + server.transport + ")";
    out << "tenant " << set.tenant << ": MCP servers " << names << "; its users' tasks start them from their next "
        << "launch\n";
    return Ok{};
}

// The operator sees what they wrote but the environment's and the headers' values, which the file holds.
nlohmann::json listedServer(const nlohmann::json& entry) {
    nlohmann::json listed = nlohmann::json::object();
    for (const char* key : {"type", "command", "args", "url"})
        if (entry.contains(key))
            listed[key] = entry[key];
    for (const char* key : {"env", "headers"})
        if (entry.contains(key) && entry[key].is_object()) {
            listed[key] = nlohmann::json::array();
            for (const auto& [name, value] : entry[key].items())
                listed[key].push_back(name);
        }
    return listed;
}

void printMcpServers(const std::vector<TenantMcpServers>& all, bool asJson, std::ostream& out) {
    if (asJson) {
        nlohmann::json list = nlohmann::json::array();
        for (const TenantMcpServers& tenant : all) {
            nlohmann::json servers = nlohmann::json::object();
            for (const auto& [name, entry] : tenant.servers.items())
                servers[name] = listedServer(entry);
            list.push_back({{"tenant", tenant.tenant}, {"servers", servers}, {"updated_at", tenant.updatedAt}});
        }
        out << list.dump(2) << "\n";
        return;
    }
    out << "TENANT\tSERVER\tTRANSPORT\tUPDATED\n";
    for (const TenantMcpServers& tenant : all)
        for (const McpServerSummary& server : summarizeMcpServers(tenant.servers))
            out << tenant.tenant << "\t" << server.name << "\t" << server.transport << "\t" << tenant.updatedAt
                << "\n";
}

// install-skills: a tenant that exists, then the copy.
Status installTenantSkills(AccountStore& store, const AdminInstallSkills& install, std::ostream& out) {
    auto tenants = store.tenants();
    if (!tenants)
        return tenants.error();
    if (std::none_of(tenants->begin(), tenants->end(),
                     [&](const TenantInfo& tenant) { return tenant.name == install.tenant; }))
        return makeError(ErrorCode::NotFound, "no tenant " + install.tenant + " (list-tenants shows them)");
    auto installed = installSkills(install.dataDir, install.tenant, install.source);
    if (!installed)
        return installed.error();
    for (const InstalledSkill& skill : *installed)
        out << "tenant " << install.tenant << ": " << (skill.replaced ? "replaced" : "installed") << " the skill "
            << skill.name << " (" << skill.files << (skill.files == 1 ? " file, " : " files, ") << skill.bytes
            << " bytes)\n";
    return Ok{};
}

// Runs the parsed command; an error is the command's failure (exit 1).
Status execute(AccountStore& store, const AdminAction& action, std::istream& in, std::ostream& out,
               std::ostream& err) {
    if (const auto* add = std::get_if<AdminAddUser>(&action)) {
        auto added = store.addUser(add->name, add->tenant);
        if (!added)
            return added.error();
        out << added->apiKey << "\n";
        err << "added user " << add->name << " in tenant " << add->tenant
            << "; the key above is shown only this once\n";
    } else if (const auto* key = std::get_if<AdminAddKey>(&action)) {
        auto added = store.addKey(key->name);
        if (!added)
            return added.error();
        out << *added << "\n";
        err << "added a key for " << key->name << "; it is shown only this once\n";
    } else if (const auto* revoke = std::get_if<AdminRevokeKey>(&action)) {
        auto revoked = store.revokeKeys(revoke->target);
        if (!revoked)
            return revoked.error();
        out << "revoked " << *revoked << (*revoked == 1 ? " key" : " keys") << "\n";
    } else if (const auto* listUsers = std::get_if<AdminListUsers>(&action)) {
        auto users = store.users();
        if (!users)
            return users.error();
        printUsers(*users, listUsers->json, out);
    } else if (const auto* listTenants = std::get_if<AdminListTenants>(&action)) {
        auto tenants = store.tenants();
        if (!tenants)
            return tenants.error();
        printTenants(*tenants, listTenants->json, out);
    } else if (const auto* quota = std::get_if<AdminSetQuota>(&action)) {
        auto set = quota->tenant ? store.setTenantQuota(*quota->tenant, quota->changes)
                                 : store.setUserQuota(*quota->user, quota->changes);
        if (!set)
            return set.error();
        out << (quota->tenant ? "tenant " + *quota->tenant : "user " + *quota->user) << ": "
            << changesText(quota->changes) << "\n";
    } else if (const auto* set = std::get_if<AdminSetSecret>(&action)) {
        return setTenantSecret(store, *set, in, out);
    } else if (const auto* remove = std::get_if<AdminDeleteSecret>(&action)) {
        auto removed = store.removeTenantHostSecret(remove->tenant, remove->name);
        if (!removed)
            return removed.error();
        if (!*removed)
            return makeError(ErrorCode::NotFound, "tenant " + remove->tenant + " has no secret " + remove->name);
        out << "tenant " << remove->tenant << ": removed the secret " << remove->name << "\n";
    } else if (const auto* listSecrets = std::get_if<AdminListSecrets>(&action)) {
        auto secrets = store.tenantHostSecrets(listSecrets->tenant);
        if (!secrets)
            return secrets.error();
        printSecrets(*secrets, listSecrets->json, out);
    } else if (const auto* setServers = std::get_if<AdminSetMcpServers>(&action)) {
        return setMcpServers(store, *setServers, out);
    } else if (const auto* deleteServers = std::get_if<AdminDeleteMcpServers>(&action)) {
        auto removed = store.removeTenantMcpServers(deleteServers->tenant);
        if (!removed)
            return removed.error();
        if (!*removed)
            return makeError(ErrorCode::NotFound, "tenant " + deleteServers->tenant + " has no MCP servers");
        out << "tenant " << deleteServers->tenant << ": removed its MCP servers\n";
    } else if (const auto* listServers = std::get_if<AdminListMcpServers>(&action)) {
        auto all = store.tenantMcpServers(listServers->tenant);
        if (!all)
            return all.error();
        printMcpServers(*all, listServers->json, out);
    } else if (const auto* install = std::get_if<AdminInstallSkills>(&action)) {
        return installTenantSkills(store, *install, out);
    } else if (const auto* removeOne = std::get_if<AdminRemoveSkill>(&action)) {
        auto removed = removeSkill(removeOne->dataDir, removeOne->tenant, removeOne->name);
        if (!removed)
            return removed.error();
        if (!*removed)
            return makeError(ErrorCode::NotFound, "tenant " + removeOne->tenant + " has no skill " + removeOne->name);
        out << "tenant " << removeOne->tenant << ": removed the skill " << removeOne->name << "\n";
    } else if (const auto* listSkills = std::get_if<AdminListSkills>(&action)) {
        auto names = installedSkills(listSkills->dataDir, listSkills->tenant);
        if (!names)
            return names.error();
        if (listSkills->json)
            out << nlohmann::json(*names).dump(2) << "\n";
        else
            for (const std::string& name : *names)
                out << name << "\n";
    }
    return Ok{};
}

} // namespace

int runAdmin(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
    auto request = parseAdminArguments(args);
    if (!request) {
        err << "warrend admin: " << request.error().message << "\n\n" << adminUsage();
        return 2;
    }
    if (!*request) {
        out << adminUsage();
        return 0;
    }
    auto store = AccountStore::open((*request)->databaseUrl);
    if (!store) {
        err << "warrend admin: " << store.error().message << "\n";
        return 1;
    }
    if (auto done = execute(*store, (*request)->action, in, out, err); !done) {
        err << "warrend admin: " << done.error().message << "\n";
        return 1;
    }
    return 0;
}

} // namespace warren::accounts
