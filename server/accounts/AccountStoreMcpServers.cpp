// AccountStore's fifth part: the MCP servers the operator gives every user of a tenant (DESIGN §13), one
// "mcpServers" object per tenant (TenantMcpServers checked it), read at each launch of a task of theirs.

#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"

namespace warren::accounts {

using control::PgRow;
using nlohmann::json;
using namespace sql;

namespace {

// A stored object; one that no longer reads (written by hand) gives nothing rather than a task's failure.
json storedServers(const std::string& text) {
    json servers = json::parse(text, nullptr, false);
    return servers.is_object() ? servers : json::object();
}

Result<json> serversOf(Result<control::PgReply> reply) {
    if (!reply)
        return reply.error();
    return reply->rows.empty() ? json::object() : storedServers(reply->rows.front().text(0));
}

} // namespace

Status AccountStore::setTenantMcpServers(const std::string& tenant, const json& servers) {
    auto id = tenantId(m_db, tenant);
    if (!id)
        return id.error();
    auto stored =
        m_db.exec("store tenant " + tenant + "'s MCP servers",
                  "INSERT INTO tenant_mcp_servers (tenant_id, servers) VALUES ($1::bigint, $2) "
                  "ON CONFLICT (tenant_id) DO UPDATE SET servers = EXCLUDED.servers, updated_at = now()",
                  {num(*id), servers.dump()});
    if (!stored)
        return stored.error();
    return Ok{};
}

Result<bool> AccountStore::removeTenantMcpServers(const std::string& tenant) {
    auto id = tenantId(m_db, tenant);
    if (!id)
        return id.error();
    auto deleted = m_db.exec("remove tenant " + tenant + "'s MCP servers",
                             "DELETE FROM tenant_mcp_servers WHERE tenant_id = $1::bigint", {num(*id)});
    if (!deleted)
        return deleted.error();
    return deleted->affected > 0;
}

Result<std::vector<TenantMcpServers>>
AccountStore::tenantMcpServers(const std::optional<std::string>& tenant) {
    if (tenant)
        if (auto id = tenantId(m_db, *tenant); !id)
            return id.error();
    auto reply = m_db.exec("list the tenants' MCP servers",
                           ("SELECT t.name, m.servers, to_char(m.updated_at AT TIME ZONE 'UTC', " +
                            std::string(kIsoTime) +
                            ") FROM tenant_mcp_servers m JOIN tenants t ON t.id = m.tenant_id "
                            "WHERE $1 = '' OR t.name = $1 ORDER BY t.name")
                               .c_str(),
                           {tenant.value_or("")});
    if (!reply)
        return reply.error();
    std::vector<TenantMcpServers> all;
    for (const PgRow& row : reply->rows)
        all.push_back({row.text(0), storedServers(row.text(1)), row.text(2)});
    return all;
}

Result<json> AccountStore::usersTenantMcpServers(std::int64_t userId) {
    return serversOf(
        m_db.exec("read user " + num(userId) + "'s tenant's MCP servers",
                  "SELECT m.servers FROM users u JOIN tenant_mcp_servers m ON m.tenant_id = u.tenant_id "
                  "WHERE u.id = $1::bigint",
                  {num(userId)}));
}

Result<json> AccountStore::taskOwnersTenantMcpServers(const std::string& taskId) {
    return serversOf(m_db.exec("read the MCP servers of task " + taskId + "'s tenant",
                               "SELECT m.servers FROM task_owners o JOIN users u ON u.id = o.user_id "
                               "JOIN tenant_mcp_servers m ON m.tenant_id = u.tenant_id WHERE o.task_id = $1",
                               {taskId}));
}

} // namespace warren::accounts
