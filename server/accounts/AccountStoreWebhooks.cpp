// AccountStore: the webhooks users register (schema version 8).

#include "app/store/postgres/PgQuery.h"
#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"

namespace warren::accounts {

using control::PgRow;

namespace {

WebhookRecord webhookRow(const PgRow& row) {
    return WebhookRecord{row.text(0), static_cast<std::int64_t>(row.uint(1)),
                         row.text(2), row.text(3),
                         row.text(4), row.text(5)};
}

} // namespace

// One statement: the count and the insert cannot be split by another request of the same user.
Result<std::optional<std::string>> AccountStore::addWebhook(const WebhookRecord& hook,
                                                            std::size_t maxPerUser) {
    const std::string insert =
        std::string("INSERT INTO webhooks (id, user_id, url, events, secret) "
                    "SELECT $1, $2::bigint, $3, $4, $5 "
                    "WHERE (SELECT count(*) FROM webhooks WHERE user_id = $2::bigint) < $6::bigint "
                    "RETURNING to_char(created_at AT TIME ZONE 'UTC', ") +
        sql::kIsoTime + ")";
    auto inserted = m_db.exec("add a webhook", insert.c_str(),
                              {hook.id, std::to_string(hook.userId), hook.url, hook.events, hook.secret,
                               std::to_string(maxPerUser)});
    if (!inserted)
        return inserted.error();
    if (inserted->rows.empty())
        return std::optional<std::string>();
    return std::optional<std::string>(inserted->rows.front().text(0));
}

Result<std::vector<WebhookRecord>> AccountStore::webhooks(std::int64_t userId) {
    const std::string select =
        std::string("SELECT id, user_id, url, events, secret, to_char(created_at AT TIME "
                    "ZONE 'UTC', ") +
        sql::kIsoTime +
        ") FROM webhooks WHERE user_id = $1::bigint "
        "ORDER BY created_at, id";
    return control::pgAll(m_db.exec("list the webhooks", select.c_str(), {std::to_string(userId)}),
                          webhookRow);
}

Result<bool> AccountStore::removeWebhook(std::int64_t userId, const std::string& id) {
    auto removed =
        m_db.exec("remove a webhook", "DELETE FROM webhooks WHERE user_id = $1::bigint AND id = $2",
                  {std::to_string(userId), id});
    if (!removed)
        return removed.error();
    return removed->affected == 1;
}

Status AccountStore::addWebhookDelivery(const WebhookDeliveryRecord& delivery) {
    return control::pgRun(m_db.exec("keep a webhook delivery",
                                    "INSERT INTO webhook_deliveries (id, hook_id, body) VALUES ($1, $2, $3)",
                                    {delivery.id, delivery.hookId, delivery.body}));
}

Status AccountStore::removeWebhookDelivery(const std::string& id) {
    return control::pgRun(
        m_db.exec("remove a webhook delivery", "DELETE FROM webhook_deliveries WHERE id = $1", {id}));
}

Result<std::vector<std::pair<WebhookRecord, WebhookDeliveryRecord>>>
AccountStore::waitingWebhookDeliveries() {
    const std::string select =
        std::string(
            "SELECT w.id, w.user_id, w.url, w.events, w.secret, to_char(w.created_at AT TIME ZONE 'UTC', ") +
        sql::kIsoTime +
        "), d.id, d.body FROM webhook_deliveries d JOIN webhooks w ON w.id = d.hook_id "
        "ORDER BY d.queued_at, d.id";
    return control::pgAll(m_db.exec("list the waiting webhook deliveries", select.c_str()),
                          [](const PgRow& row) {
                              WebhookRecord hook = webhookRow(row);
                              return std::pair<WebhookRecord, WebhookDeliveryRecord>(
                                  std::move(hook), {row.text(6), row.text(0), row.text(7)});
                          });
}

} // namespace warren::accounts
