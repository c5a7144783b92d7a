#pragma once
// warrend's accounts in PostgreSQL: tenants, users, their API keys (hash and display prefix only), quotas
// (columns of the tenant's and the user's row; a user's set value narrows the tenant's), concurrent-task
// reservations, model tokens per user and calendar month (UTC), what each user owns, Idempotency-Keys, and
// the provider keys users store (sealed with the operator's secret: the database holds no key in clear).
//
// Its own tables and its own schema version (accounts_schema_version), migrated under an advisory lock so
// that several warrend processes starting at once migrate once; separate from the task store's.
//
// Every lookup of a thing a user owns is by (user, id): another user's id is not found, exactly as an id
// that does not exist. One AccountStore is one connection: use it from one thread at a time, and open one
// per thread. Every error says what failed and what to do; nothing is half-written (one transaction each).

#include "app/secretproxy/HostSecret.h"
#include "app/store/postgres/PgConnection.h"
#include "common/Result.h"
#include "server/accounts/AccountTypes.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warren::accounts {

using Clock = std::chrono::system_clock;

// The calendar month (UTC) of a moment, as PostgreSQL's date of its first day: "2026-12-01".
std::string monthOf(Clock::time_point at);

// A user or tenant name: 1 to 64 of [A-Za-z0-9._-], starting with a letter or digit and not with "wrn_"
// (it is typed on command lines and shown in messages, where "wrn_..." names a key).
Status checkAccountName(const std::string& kind, const std::string& name);

// An Idempotency-Key header's value: 1 to 255 visible ASCII characters.
Status checkIdempotencyKey(const std::string& key);

// One quota change: set a limit, or clear it (nullopt) so that it no longer binds at this level.
struct QuotaChange {
    LimitName limit;
    std::optional<std::uint64_t> value;
};

struct NewUser {
    Account account;
    std::string apiKey; // shown once; the database has only its hash
};

inline constexpr const char* kTaskRequestsChannel = "warren_task_requests";
inline constexpr const char* kTaskAnswersChannel = "warren_task_answers";

struct TaskRequestRow {
    std::int64_t id = 0;
    std::string taskId;
    std::string request;
};

class AccountStore {
public:
    // Connects and brings the schema to the current version.
    static Result<AccountStore> open(const std::string& databaseUrl);
    static Result<AccountStore> open(control::PgConnection connection);
    static int currentSchemaVersion();
    Result<int> schemaVersion();

    // Tenants and users. addUser creates the tenant when it does not exist; a taken name is
    // InvalidArgument. addKey gives an existing user one more key.
    Result<NewUser> addUser(const std::string& name, const std::string& tenant);
    Result<std::string> addKey(const std::string& userName);
    // Revokes the key whose display prefix this is (exactly one must match), or, given a user's name,
    // every key of that user. Answers how many keys it revoked (0 when all were revoked already).
    Result<std::uint64_t> revokeKeys(const std::string& userNameOrKeyPrefix);
    Result<std::vector<UserInfo>> users();
    Result<std::vector<TenantInfo>> tenants();
    Result<std::optional<Account>> user(const std::string& name);

    // The account behind a key, or nullopt for a malformed, unknown or revoked key (one answer for all).
    Result<std::optional<Account>> authenticate(const std::string& apiKey);

    // Quotas. Each change sets or clears one limit of the tenant's or the user's row.
    Status setTenantQuota(const std::string& tenant, const std::vector<QuotaChange>& changes);
    Status setUserQuota(const std::string& userName, const std::vector<QuotaChange>& changes);
    Result<Quotas> quotas(std::int64_t userId);

    // Concurrent tasks: a reservation per running task. reserveTask locks the tenant's row, counts the
    // tenant's and the user's reservations, and adds one only if both are under their max_concurrent;
    // a task that holds one already keeps it. A task that gets or holds one no longer waits (in the same
    // transaction: a task holds a slot or waits for one, never both). releaseTask is idempotent.
    Result<Reservation> reserveTask(std::int64_t userId, const std::string& taskId);
    Status releaseTask(const std::string& taskId);
    Result<std::uint64_t> activeTasks(std::int64_t userId);
    // Every task holding a reservation, oldest first: after a crash (kill -9) reservations of tasks that
    // no longer run are still held, and warrend releases those on start, once it knows which run.
    Result<std::vector<std::string>> reservedTasks();
    // Tasks waiting for a slot, oldest first: warrend offers each a reservation when one may have freed.
    Status addWaitingTask(std::int64_t userId, const std::string& taskId);
    Result<std::vector<WaitingTask>> waitingTasks();
    Status forgetWaitingTask(const std::string& taskId); // idempotent

    // Model tokens in the month of `at`: the user's own count; the check sees the user's and the
    // tenant's tokens_per_month against the user's and the tenant's (all its users') use.
    Status addTokens(std::int64_t userId, std::uint64_t tokens, Clock::time_point at = Clock::now());
    Result<std::uint64_t> tokensUsed(std::int64_t userId, Clock::time_point at = Clock::now());
    // A task of the user's has used total tokens so far, over all its runs: what was not counted yet goes to
    // its owner's month of `at`, in one statement (a total already counted adds nothing).
    Status countTaskTokens(const std::string& taskId, std::uint64_t total,
                           Clock::time_point at = Clock::now());
    Result<std::optional<OverQuota>> wouldExceedTokens(std::int64_t userId, std::uint64_t tokens,
                                                       Clock::time_point at = Clock::now());

    // Ownership. An id is recorded once (a second record of the same id is InvalidArgument); a lookup with
    // another user's id answers nullopt.
    Status recordUpload(std::int64_t userId, const std::string& uploadId, const std::string& directory);
    Result<std::optional<UploadOwnership>> upload(std::int64_t userId, const std::string& uploadId);
    Status recordTask(std::int64_t userId, const std::string& taskId,
                      const std::optional<std::string>& uploadId);
    Result<std::optional<TaskOwnership>> task(std::int64_t userId, const std::string& taskId);
    Result<std::vector<std::string>> taskIds(std::int64_t userId); // newest first
    Result<std::vector<std::string>> uploadDirectories(std::int64_t userId); // of every upload of the user
    // The final tasks whose files are due for removal now (TaskRetention.h), in one statement over the task
    // store's tasks table and the owners' quotas: finished longer ago than the shortest of serveDays (0: not
    // set), the owner's and the tenant's retention_days that is set; not removed yet. At most limit.
    Result<std::vector<std::string>> tasksDueForRemoval(std::uint64_t serveDays, std::size_t limit);
    // Whose task this is (for the labels of its sandbox), whoever asks: warrend's own question, never a
    // user's.
    Result<std::optional<Account>> taskOwner(const std::string& taskId);

    // Idempotency-Key: claims (user, key) for newTaskId and the body's hash, or answers the task an
    // earlier claim stands for (Replay for the same body, Conflict for another). A claim lasts
    // kIdempotencyKeyLifetime from `at`: an older one is forgotten (with the user's other expired ones),
    // so the key is new again and the table does not grow for ever. forget undoes a claim whose task
    // could not be created, so that a retry can create it.
    // claimer: the claiming replica (TaskLeases' replicaName). takeOver moves a claim from staleTaskId, whose
    // replica died before it recorded the task, to newTaskId and claimer: false when it no longer stands for
    // staleTaskId (another request took it over first).
    static constexpr std::chrono::hours kIdempotencyKeyLifetime{24};
    Result<IdempotencyClaim> claimIdempotencyKey(std::int64_t userId, const std::string& key,
                                                 const std::string& requestBody, const std::string& newTaskId,
                                                 const std::string& claimer,
                                                 Clock::time_point at = Clock::now());
    Result<bool> takeOverIdempotencyKey(std::int64_t userId, const std::string& key,
                                        const std::string& staleTaskId, const std::string& newTaskId,
                                        const std::string& claimer);
    Status forgetIdempotencyKey(std::int64_t userId, const std::string& key, const std::string& taskId);

    // Provider keys a user stores, sealed (SealedSecret) with secret, the operator's kSealKeyBytes, and bound
    // to (user, provider): a row copied to another user or provider does not open. Setting a key replaces the
    // user's earlier one for that provider (answering its name and time); removing answers false when there
    // was none.
    Result<ProviderKeyInfo> setProviderKey(std::int64_t userId, const std::string& provider,
                                           const std::string& key, std::string_view secret);
    Result<bool> removeProviderKey(std::int64_t userId, const std::string& provider);
    Result<std::vector<ProviderKeyInfo>> providerKeys(std::int64_t userId); // by provider name
    // The key the owner of the task stored for the provider, opened; nullopt when they stored none. A key
    // that does not open with secret (the operator changed it; empty: warrend runs without one) is an error
    // saying so: never someone else's key in its place.
    Result<std::optional<std::string>>
    taskOwnersProviderKey(const std::string& taskId, const std::string& provider, std::string_view secret);

    // Secrets bound to hosts a user stores (DESIGN §12): the value and its binding sealed together with
    // secret (as provider keys), bound to (user, name), so neither the value nor the hosts it may go to can
    // be changed or moved to another user in the database. Listing gives the names, hosts and headers.
    Result<HostSecretInfo> setHostSecret(std::int64_t userId, const control::HostSecret& hostSecret,
                                         std::string_view secret);
    Result<bool> removeHostSecret(std::int64_t userId, const std::string& name);
    // The user's own and their tenant's, by name, the user's first where both have a name.
    Result<std::vector<HostSecretInfo>> hostSecrets(std::int64_t userId);
    // The operator's secrets for every user of a tenant (warrend admin), sealed the same way and bound to
    // (tenant, name). An unknown tenant is NotFound.
    Result<HostSecretInfo> setTenantHostSecret(const std::string& tenant, const control::HostSecret& hostSecret,
                                               std::string_view secret);
    Result<bool> removeTenantHostSecret(const std::string& tenant, const std::string& name);
    Result<std::vector<HostSecretInfo>> tenantHostSecrets(const std::string& tenant); // by name
    // The task owner's secret of that name, or else their tenant's, opened; an error naming how to store it
    // when there is none, and when it does not open with secret.
    Result<control::HostSecret> taskOwnersHostSecret(const std::string& taskId, const std::string& name,
                                                     std::string_view secret);

    // The MCP servers the operator gives every user of a tenant (DESIGN §13): one "mcpServers" object per
    // tenant (readTenantMcpServers checked it), replaced whole; removing answers false when there was none.
    // An unknown tenant is NotFound. The reads answer {} where the tenant has none.
    Status setTenantMcpServers(const std::string& tenant, const nlohmann::json& servers);
    Result<bool> removeTenantMcpServers(const std::string& tenant);
    Result<std::vector<TenantMcpServers>> tenantMcpServers(const std::optional<std::string>& tenant); // by tenant
    Result<nlohmann::json> usersTenantMcpServers(std::int64_t userId);
    // Whoever asks: warrend's own question at a launch of the task, never a user's.
    Result<nlohmann::json> taskOwnersTenantMcpServers(const std::string& taskId);

    // A user's webhooks (AccountStoreWebhooks.cpp). add: its created_at, or nullopt and nothing stored when
    // the user has maxPerUser already. remove: false when the user has no hook of that id (another user's is
    // none of theirs).
    Result<std::optional<std::string>> addWebhook(const WebhookRecord& hook, std::size_t maxPerUser);
    Result<std::vector<WebhookRecord>> webhooks(std::int64_t userId);
    Result<bool> removeWebhook(std::int64_t userId, const std::string& id);
    // The deliveries waiting (schema version 9): kept before one is queued, removed once it is delivered or
    // given up on, and read with their hooks when warrend starts, oldest first.
    Status addWebhookDelivery(const WebhookDeliveryRecord& delivery);
    Status removeWebhookDelivery(const std::string& id);
    Result<std::vector<std::pair<WebhookRecord, WebhookDeliveryRecord>>> waitingWebhookDeliveries();

    // Task leases (AccountStoreLeases.cpp, schema version 11): which replica runs a task, by the database's
    // clock, so that replicas on machines whose clocks differ agree. takeLease: the lease is holder's now
    // (it was free, expired, holder's already and renewed, or goneHolder's, a holder known dead), or false:
    // another holder's, alive. renewLeases: holder's leases of taskIds are renewed (or taken again where
    // no live holder has them) and its others dropped; the ids it holds now. liveLeases: every lease not expired, as (task, holder).
    Result<bool> takeLease(const std::string& taskId, const std::string& holder, std::chrono::milliseconds ttl,
                           const std::string& goneHolder = {});
    Result<std::vector<std::string>> renewLeases(const std::string& holder, const std::vector<std::string>& taskIds,
                                                 std::chrono::milliseconds ttl);
    Status releaseLease(const std::string& taskId, const std::string& holder);
    Result<bool> heldElsewhere(const std::string& taskId, const std::string& holder);
    Result<std::vector<std::pair<std::string, std::string>>> liveLeases();
    // Installs (or replaces) the rule that refuses a writer's events of a task another holder leases
    // (AccountSchema.h): once the task store's tables exist.
    Status fenceEventWrites();

    // Requests for the replica running a task (AccountStoreRequests.cpp, schema version 12): added by the
    // replica a client asked (its id back; kTaskRequestsChannel notified with the task's id), read by the
    // holder of the task (openTaskRequests), answered (kTaskAnswersChannel notified with the request's id),
    // and the answer taken once by the asker. forgetTaskRequests drops those older than age (their asker
    // gave up on them long since).
    Result<std::int64_t> addTaskRequest(const std::string& taskId, const std::string& request);
    Result<std::vector<TaskRequestRow>> openTaskRequests(const std::vector<std::string>& taskIds);
    Status answerTaskRequest(std::int64_t id, const std::string& answer);
    Result<std::optional<std::string>> takeTaskRequestAnswer(std::int64_t id);
    Status forgetTaskRequests(std::chrono::seconds age);

    control::PgConnection& connection() { return m_db; }

private:
    explicit AccountStore(control::PgConnection db) : m_db(std::move(db)) {}
    Status migrate();
    Result<std::string> insertKey(std::int64_t userId);
    Status setQuota(const char* table, const std::string& name, const std::vector<QuotaChange>& changes);

    control::PgConnection m_db;
};

} // namespace warren::accounts
