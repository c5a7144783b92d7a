// AccountStore against a real PostgreSQL (PostgresServer): keys stored only as hashes and refused when
// unknown, revoked or forged; reservations that never exceed a tenant's or a user's max_concurrent under
// contention from several connections on several threads; month tokens; owner-scoped lookups;
// Idempotency-Keys; and task leases, one holder each under contention.

#include "agent_core/protocol/Timestamp.h"
#include "app/store/EventWriter.h"
#include "app/store/OpenStore.h"
#include "app/store/postgres/PgStore.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/ApiKey.h"
#include "tests/support/PostgresServer.h"
#include "tests/support/StoreContract.h"

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <tuple>

using namespace warren;
using namespace warren::accounts;

namespace {

template <typename T> T must(Result<T> result) {
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return std::move(result).value();
}

void must(Status status) {
    if (!status)
        qFatal("%s", status.error().message.c_str());
}

Clock::time_point utc(int year, unsigned month, unsigned day) {
    return std::chrono::sys_days(std::chrono::year{year} / std::chrono::month{month} /
                                 std::chrono::day{day}) +
           std::chrono::hours(12);
}

} // namespace

class TestAccountStore : public QObject {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;
    std::optional<AccountStore> m_store;

    AccountStore open() { return must(AccountStore::open(m_server->url().toStdString())); }
    AccountStore& store() { return *m_store; }

private slots:
    void initTestCase() {
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
        m_store.emplace(open());
    }

    void migratesOnceAndReopens() {
        QCOMPARE(must(store().schemaVersion()), AccountStore::currentSchemaVersion());
        // Several processes starting at once on an empty database: the advisory lock lets one migrate, the
        // others wait and find it done.
        must(store().connection().exec("create", "CREATE DATABASE fresh"));
        const QString url = m_server->url().replace(QStringLiteral("/postgres?"), QStringLiteral("/fresh?"));
        QVERIFY(url.contains(QStringLiteral("/fresh?")));
        std::vector<std::thread> threads;
        std::atomic<int> failures{0};
        for (int i = 0; i < 4; ++i)
            threads.emplace_back([&] {
                if (!AccountStore::open(url.toStdString()))
                    ++failures;
            });
        for (auto& thread : threads)
            thread.join();
        QCOMPARE(failures.load(), 0);
        auto fresh = must(AccountStore::open(url.toStdString()));
        auto rows = must(fresh.connection().exec("count", "SELECT count(*) FROM accounts_schema_version"));
        QCOMPARE(rows.rows.at(0).uint(0), std::uint64_t(AccountStore::currentSchemaVersion()));
    }

    void addUserStoresOnlyTheHash() {
        const NewUser added = must(store().addUser("alice", "default"));
        QVERIFY(api_key::isWellFormed(added.apiKey));
        QCOMPARE(added.account.tenantName, std::string("default"));
        const std::string body = added.apiKey.substr(kApiKeyPrefix.size());
        // Every column of every table, as text: the key's text is nowhere, its hash is.
        auto tables = must(store().connection().exec(
            "tables", "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"));
        bool hashFound = false;
        for (const auto& table : tables.rows) {
            auto dump = must(
                store().connection().exec("dump", ("SELECT t::text FROM " + table.text(0) + " t").c_str()));
            for (const auto& row : dump.rows) {
                QVERIFY2(row.text(0).find(body) == std::string::npos, row.text(0).c_str());
                QVERIFY2(row.text(0).find(body.substr(8, 20)) == std::string::npos, row.text(0).c_str());
                hashFound = hashFound || row.text(0).find(api_key::hash(added.apiKey)) != std::string::npos;
            }
        }
        QVERIFY(hashFound);
        const auto account = must(store().authenticate(added.apiKey));
        QVERIFY(account);
        QCOMPARE(account->userName, std::string("alice"));
        QCOMPARE(account->userId, added.account.userId);
    }

    void takenNamesAndBadNamesAreRefused() {
        must(store().addUser("bob", "acme"));
        auto again = store().addUser("bob", "other");
        QVERIFY(!again);
        QCOMPARE(again.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(again.error().message.find("add-key bob") != std::string::npos,
                 again.error().message.c_str());
        QVERIFY(!must(store().user("nobody")));
        // Nothing half-created: the refused call made no tenant "other".
        auto tenants =
            must(store().connection().exec("t", "SELECT count(*) FROM tenants WHERE name = 'other'"));
        QCOMPARE(tenants.rows.at(0).uint(0), std::uint64_t(0));
        for (const char* bad : {"", "-x", "a b", "wrn/x", "wrn_x", "é", "x;drop"})
            QVERIFY2(!store().addUser(bad, "default"), bad);
        QVERIFY(!store().addUser("carol", "bad tenant"));
    }

    void unknownRevokedAndForgedKeysDoNotAuthenticate() {
        const NewUser dave = must(store().addUser("dave", "default"));
        const std::string second = must(store().addKey("dave"));
        QVERIFY(must(store().authenticate(second)));
        // A forged key: well-formed, never issued; one character changed; not a key at all.
        QVERIFY(!must(store().authenticate("wrn_" + std::string(51, 'a') + "g")));
        std::string changed = dave.apiKey;
        changed[10] = changed[10] == 'a' ? 'b' : 'a';
        QVERIFY(!must(store().authenticate(changed)));
        QVERIFY(!must(store().authenticate(api_key::hash(dave.apiKey))));
        QVERIFY(!must(store().authenticate("")));
        QVERIFY(!must(store().authenticate(dave.apiKey + " ")));
        // Revoking one key by its prefix leaves the other working; by name revokes the rest.
        QCOMPARE(must(store().revokeKeys(api_key::displayPrefix(dave.apiKey))), std::uint64_t(1));
        QVERIFY(!must(store().authenticate(dave.apiKey)));
        QVERIFY(must(store().authenticate(second)));
        QCOMPARE(must(store().revokeKeys("dave")), std::uint64_t(1));
        QVERIFY(!must(store().authenticate(second)));
        QCOMPARE(must(store().revokeKeys("dave")), std::uint64_t(0));
        QCOMPARE(store().revokeKeys("wrn_zzzzzzzz").error().code, ErrorCode::NotFound);
        QCOMPARE(store().revokeKeys("wrn_zz").error().code, ErrorCode::InvalidArgument);
        QCOMPARE(store().revokeKeys("nobody").error().code, ErrorCode::NotFound);
        const auto users = must(store().users());
        const auto it =
            std::find_if(users.begin(), users.end(), [](const UserInfo& u) { return u.name == "dave"; });
        QVERIFY(it != users.end());
        QCOMPARE(it->keys.size(), std::size_t(2));
        QVERIFY(it->keys[0].revokedAt && it->keys[1].revokedAt);
    }

    // A user's provider key: sealed, replaced, listed by name, read only as a task's owner's, and a row
    // copied to another user or provider, or read with another secret or none, does not open.
    void providerKeysAreSealedAndBound() {
        const std::string secret(32, 's');
        const std::int64_t frank = must(store().addUser("frank", "keys")).account.userId;
        const std::int64_t gina = must(store().addUser("gina", "keys")).account.userId;
        must(store().recordTask(frank, "t-frank", std::nullopt));
        must(store().recordTask(gina, "t-gina", std::nullopt));
        QVERIFY(!must(store().taskOwnersProviderKey("t-frank", "openai", secret)));
        must(store().setProviderKey(frank, "openai", "sk-frank-1", secret));
        const ProviderKeyInfo stored = must(store().setProviderKey(frank, "openai", "sk-frank-2", secret));
        QCOMPARE(stored.provider, std::string("openai"));
        QCOMPARE(stored.updatedAt.size(), std::size_t(20)); // 2026-12-02T01:02:03Z
        QCOMPARE(must(store().taskOwnersProviderKey("t-frank", "openai", secret)),
                 std::optional<std::string>("sk-frank-2"));
        QVERIFY(!must(store().taskOwnersProviderKey("t-gina", "openai", secret)));
        QVERIFY(!must(store().taskOwnersProviderKey("t-frank", "anthropic", secret)));
        const auto listed = must(store().providerKeys(frank));
        QCOMPARE(listed.size(), std::size_t(1));
        QCOMPARE(listed[0].provider, std::string("openai"));
        QVERIFY(must(store().providerKeys(gina)).empty());
        auto rows = must(store().connection().exec("dump", "SELECT provider_keys::text FROM provider_keys"));
        for (const auto& row : rows.rows)
            QVERIFY(row.text(0).find("sk-frank") == std::string::npos);

        const auto copy = [&](const char* provider, std::int64_t to) {
            must(store().connection().exec(
                "copy",
                "INSERT INTO provider_keys (user_id, provider, nonce, ciphertext) "
                "SELECT $1::bigint, $2, nonce, ciphertext FROM provider_keys WHERE user_id = $3::bigint "
                "AND provider = 'openai'",
                {std::to_string(to), std::string(provider), std::to_string(frank)}));
        };
        copy("openai", gina);
        copy("anthropic", frank);
        for (const auto& [task, provider, key] :
             {std::tuple{"t-gina", "openai", secret}, std::tuple{"t-frank", "anthropic", secret},
              std::tuple{"t-frank", "openai", std::string(32, 'x')},
              std::tuple{"t-frank", "openai", std::string()}}) {
            auto opened = store().taskOwnersProviderKey(task, provider, key);
            QVERIFY(!opened);
            QVERIFY2(opened.error().message.find("cannot be decrypted") != std::string::npos,
                     opened.error().message.c_str());
        }
        QVERIFY(must(store().removeProviderKey(frank, "openai")));
        QVERIFY(!must(store().removeProviderKey(frank, "openai")));
        QVERIFY(!must(store().taskOwnersProviderKey("t-frank", "openai", secret)));
    }

    void quotasSetAndClear() {
        const NewUser erin = must(store().addUser("erin", "quota-tenant"));
        must(store().setTenantQuota("quota-tenant",
                                    {{LimitName::MemoryMb, 1024}, {LimitName::MaxConcurrent, 3}}));
        must(store().setUserQuota("erin", {{LimitName::MemoryMb, 512}}));
        Quotas quotas = must(store().quotas(erin.account.userId));
        QCOMPARE(quotas.tenant.get(LimitName::MemoryMb), std::optional<std::uint64_t>(1024));
        QCOMPARE(quotas.user.get(LimitName::MemoryMb), std::optional<std::uint64_t>(512));
        QCOMPARE(quotas.tenant.get(LimitName::MaxConcurrent), std::optional<std::uint64_t>(3));
        must(store().setUserQuota("erin", {{LimitName::MemoryMb, std::nullopt}}));
        quotas = must(store().quotas(erin.account.userId));
        QVERIFY(!quotas.user.get(LimitName::MemoryMb));
        QCOMPARE(store().setTenantQuota("no-such-tenant", {{LimitName::Pids, 5}}).error().code,
                 ErrorCode::NotFound);
        QCOMPARE(store().setUserQuota("erin", {{LimitName::Pids, 0}}).error().code,
                 ErrorCode::InvalidArgument);
        QCOMPARE(store().setUserQuota("erin", {}).error().code, ErrorCode::InvalidArgument);
    }

    void reservationsNeverExceedTheLimitsUnderContention() {
        // Tenant "busy": 5 at once; user u0's own override is 2 (narrower), u1's 50 (the tenant's binds).
        std::vector<std::int64_t> users;
        for (int i = 0; i < 4; ++i)
            users.push_back(must(store().addUser("busy-u" + std::to_string(i), "busy")).account.userId);
        must(store().setTenantQuota("busy", {{LimitName::MaxConcurrent, 5}}));
        must(store().setUserQuota("busy-u0", {{LimitName::MaxConcurrent, 2}}));
        must(store().setUserQuota("busy-u1", {{LimitName::MaxConcurrent, 50}}));
        // Another tenant's reservations are neither counted nor touched.
        const auto outsider = must(store().addUser("outsider", "calm")).account.userId;
        QVERIFY(must(store().reserveTask(outsider, "outsider-task")).reserved());

        constexpr int kThreads = 8;
        constexpr int kAttemptsPerThread = 25;
        std::atomic<int> reserved{0};
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                auto connection = AccountStore::open(m_server->url().toStdString());
                if (!connection) {
                    ++failures;
                    return;
                }
                for (int i = 0; i < kAttemptsPerThread; ++i) {
                    const auto user = users[static_cast<std::size_t>((t + i) % 4)];
                    auto outcome =
                        connection->reserveTask(user, "busy-" + std::to_string(t) + "-" + std::to_string(i));
                    if (!outcome)
                        ++failures;
                    else if (outcome->reserved())
                        ++reserved;
                }
            });
        for (auto& thread : threads)
            thread.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(reserved.load(), 5);
        QVERIFY(must(store().activeTasks(users[0])) <= 2);
        std::uint64_t total = 0;
        for (const auto user : users)
            total += must(store().activeTasks(user));
        QCOMPARE(total, std::uint64_t(5));
        QCOMPARE(must(store().activeTasks(outsider)), std::uint64_t(1));

        // Which limit refused: the user's own for u0 at 2, the tenant's for anyone once 5 run.
        auto full = must(store().reserveTask(users[1], "busy-extra"));
        QVERIFY(!full.reserved());
        QCOMPARE(full.refused->level, LimitLevel::Tenant);
        QCOMPARE(full.refused->value, std::uint64_t(5));
        QVERIFY(!full.refused->message().empty());
    }

    // A task waits for a slot or holds one, never both: a reservation takes it off the list in its own
    // transaction; a refused one leaves it in its place.
    void waitingTasksLeaveTheListWhenTheyGetASlot() {
        const auto wanda = must(store().addUser("wanda", "waiters")).account.userId;
        const auto walt = must(store().addUser("walt", "waiters")).account.userId;
        const auto tenant = must(store().user("wanda"))->tenantId;
        must(store().setTenantQuota("waiters", {{LimitName::MaxConcurrent, 1}}));
        QVERIFY(must(store().reserveTask(wanda, "wait-0")).reserved());
        for (const auto& [user, task] : {std::pair{wanda, "wait-1"}, {walt, "wait-2"}, {wanda, "wait-3"}})
            must(store().addWaitingTask(user, task));
        QCOMPARE(store().addWaitingTask(wanda, "wait-1").error().code, ErrorCode::InvalidArgument);
        const auto ids = [&] {
            std::vector<std::string> out;
            for (const auto& task : must(store().waitingTasks()))
                if (task.taskId.starts_with("wait-"))
                    out.push_back(task.taskId);
            return out;
        };
        QCOMPARE(ids(), (std::vector<std::string>{"wait-1", "wait-2", "wait-3"}));
        const auto first = must(store().waitingTasks());
        const auto listed =
            std::find_if(first.begin(), first.end(), [](const auto& t) { return t.taskId == "wait-2"; });
        QVERIFY(listed != first.end());
        QCOMPARE(listed->userId, walt);
        QCOMPARE(listed->tenantId, tenant);

        QVERIFY(!must(store().reserveTask(walt, "wait-2")).reserved()); // the tenant is full: it stays
        QCOMPARE(ids(), (std::vector<std::string>{"wait-1", "wait-2", "wait-3"}));
        must(store().releaseTask("wait-0"));
        QVERIFY(must(store().reserveTask(walt, "wait-2")).reserved());
        QCOMPARE(ids(), (std::vector<std::string>{"wait-1", "wait-3"}));
        must(store().forgetWaitingTask("wait-3"));
        must(store().forgetWaitingTask("wait-3"));
        QCOMPARE(ids(), (std::vector<std::string>{"wait-1"}));
    }

    void userOverrideBindsBelowTheTenant() {
        const auto solo = must(store().addUser("solo", "roomy")).account.userId;
        const auto peer = must(store().addUser("solo-peer", "roomy")).account.userId;
        must(store().setTenantQuota("roomy", {{LimitName::MaxConcurrent, 10}}));
        must(store().setUserQuota("solo", {{LimitName::MaxConcurrent, 1}}));
        QVERIFY(must(store().reserveTask(solo, "solo-1")).reserved());
        QVERIFY(
            must(store().reserveTask(solo, "solo-1")).reserved()); // held already: kept, not counted twice
        auto second = must(store().reserveTask(solo, "solo-2"));
        QVERIFY(!second.reserved());
        QCOMPARE(second.refused->level, LimitLevel::User);
        QCOMPARE(second.refused->used, std::uint64_t(1));
        QVERIFY(must(store().reserveTask(peer, "peer-1")).reserved()); // the tenant has room for others
        QCOMPARE(store().reserveTask(peer, "solo-1").error().code, ErrorCode::InvalidArgument);
        // Release, release again (idempotent), then reserve again.
        must(store().releaseTask("solo-1"));
        must(store().releaseTask("solo-1"));
        QVERIFY(must(store().reserveTask(solo, "solo-2")).reserved());
        // What warrend reconciles on start: every reservation held, its own and other tenants'.
        const auto held = must(store().reservedTasks());
        QVERIFY(std::find(held.begin(), held.end(), "solo-2") != held.end());
        QVERIFY(std::find(held.begin(), held.end(), "peer-1") != held.end());
        QVERIFY(std::find(held.begin(), held.end(), "outsider-task") != held.end());
        QVERIFY(std::find(held.begin(), held.end(), "solo-1") == held.end());
        // Clearing the override: the tenant's 10 is all that binds.
        must(store().setUserQuota("solo", {{LimitName::MaxConcurrent, std::nullopt}}));
        QVERIFY(must(store().reserveTask(solo, "solo-3")).reserved());
        // A tenant's 0: nothing runs.
        must(store().setTenantQuota("roomy", {{LimitName::MaxConcurrent, 0}}));
        QCOMPARE(must(store().reserveTask(peer, "peer-2")).refused->level, LimitLevel::Tenant);
    }

    void tokensPerCalendarMonth() {
        const auto user = must(store().addUser("tok", "tok-tenant")).account.userId;
        const auto peer = must(store().addUser("tok-peer", "tok-tenant")).account.userId;
        must(store().setUserQuota("tok", {{LimitName::TokensPerMonth, 1000}}));
        must(store().setTenantQuota("tok-tenant", {{LimitName::TokensPerMonth, 1500}}));
        const auto december = utc(2026, 12, 31);
        must(store().addTokens(user, 600, december));
        must(store().addTokens(user, 300, december));
        QCOMPARE(must(store().tokensUsed(user, december)), std::uint64_t(900));
        QVERIFY(!must(store().wouldExceedTokens(user, 100, december)));
        auto over = must(store().wouldExceedTokens(user, 101, december));
        QVERIFY(over);
        QCOMPARE(over->level, LimitLevel::User);
        QCOMPARE(over->used, std::uint64_t(900));
        // The tenant counts all its users: 900 + 550 > 1500 would not, 900 + 601 would.
        QVERIFY(!must(store().wouldExceedTokens(peer, 600, december)));
        QCOMPARE(must(store().wouldExceedTokens(peer, 601, december))->level, LimitLevel::Tenant);
        // A new month starts at zero.
        const auto january = utc(2027, 1, 1);
        QCOMPARE(must(store().tokensUsed(user, january)), std::uint64_t(0));
        QVERIFY(!must(store().wouldExceedTokens(user, 1000, january)));
        QVERIFY(must(store().wouldExceedTokens(user, UINT64_MAX, january)));
        QCOMPARE(QString::fromStdString(monthOf(january)), QStringLiteral("2027-01-01"));
    }

    void anotherUsersIdsAreNotFound() {
        const auto owner = must(store().addUser("owner", "default")).account.userId;
        const auto other = must(store().addUser("other", "default")).account.userId;
        must(store().recordUpload(owner, "up-1", "/data/uploads/up-1"));
        must(store().recordTask(owner, "task-1", std::string("up-1")));
        QCOMPARE(must(store().upload(owner, "up-1"))->directory, std::string("/data/uploads/up-1"));
        QCOMPARE(must(store().task(owner, "task-1"))->uploadId, std::optional<std::string>("up-1"));
        QVERIFY(!must(store().upload(other, "up-1")));
        QVERIFY(!must(store().task(other, "task-1")));
        QVERIFY(must(store().taskIds(other)).empty());
        // Another user's upload cannot be a task's workspace; a taken id is refused.
        QCOMPARE(store().recordTask(other, "task-2", std::string("up-1")).error().code, ErrorCode::NotFound);
        QCOMPARE(store().recordTask(other, "task-1", std::nullopt).error().code, ErrorCode::InvalidArgument);
        QCOMPARE(store().recordUpload(other, "up-1", "/x").error().code, ErrorCode::InvalidArgument);
        must(store().recordTask(owner, "task-3", std::nullopt));
        QCOMPARE(must(store().taskIds(owner)), (std::vector<std::string>{"task-3", "task-1"}));
        // warrend's own question, for a sandbox's labels: the owner and their tenant; none for a stranger.
        const auto whose = must(store().taskOwner("task-1"));
        QVERIFY(whose);
        QCOMPARE(whose->userId, owner);
        QCOMPARE(whose->userName, std::string("owner"));
        QCOMPARE(whose->tenantName, std::string("default"));
        QVERIFY(!must(store().taskOwner("task-9")));
    }

    void idempotencyKeys() {
        const auto user = must(store().addUser("idem", "default")).account.userId;
        const auto other = must(store().addUser("idem-other", "default")).account.userId;
        const std::string body = R"({"prompt":"hi","workspace":"up"})";
        auto first = must(store().claimIdempotencyKey(user, "k-1", body, "t-1", "replica-a"));
        QCOMPARE(first.outcome, IdempotencyClaim::Outcome::Claimed);
        auto replay = must(store().claimIdempotencyKey(user, "k-1", body, "t-2", "replica-a"));
        QCOMPARE(replay.outcome, IdempotencyClaim::Outcome::Replay);
        QCOMPARE(replay.taskId, std::string("t-1"));
        auto conflict = must(store().claimIdempotencyKey(user, "k-1", body + " ", "t-3", "replica-a"));
        QCOMPARE(conflict.outcome, IdempotencyClaim::Outcome::Conflict);
        // Keys are per user: the same key of another user is theirs alone.
        QCOMPARE(must(store().claimIdempotencyKey(other, "k-1", body, "t-4", "replica-a")).outcome,
                 IdempotencyClaim::Outcome::Claimed);
        // A claim whose task failed is forgotten; only its own task's claim is.
        must(store().forgetIdempotencyKey(user, "k-1", "t-9"));
        QCOMPARE(must(store().claimIdempotencyKey(user, "k-1", body, "t-5", "replica-a")).outcome,
                 IdempotencyClaim::Outcome::Replay);
        must(store().forgetIdempotencyKey(user, "k-1", "t-1"));
        QCOMPARE(must(store().claimIdempotencyKey(user, "k-1", body, "t-5", "replica-a")).outcome,
                 IdempotencyClaim::Outcome::Claimed);
        QCOMPARE(store().claimIdempotencyKey(user, "", body, "t-6", "replica-a").error().code,
                 ErrorCode::InvalidArgument);
        // A claim answers who made it; a replica that died before its task was recorded is taken over once:
        // the key then stands for the new task and its claimer, and a second take-over of the dead claim
        // fails.
        auto claimed = must(store().claimIdempotencyKey(user, "k-dead", body, "t-lost", "replica-dead"));
        QCOMPARE(claimed.claimedBy, std::string("replica-dead"));
        auto stuck = must(store().claimIdempotencyKey(user, "k-dead", body, "t-7", "replica-b"));
        QCOMPARE(stuck.outcome, IdempotencyClaim::Outcome::Replay);
        QCOMPARE(stuck.taskId, std::string("t-lost"));
        QCOMPARE(stuck.claimedBy, std::string("replica-dead"));
        QVERIFY(must(store().takeOverIdempotencyKey(user, "k-dead", "t-lost", "t-7", "replica-b")));
        QVERIFY(!must(store().takeOverIdempotencyKey(user, "k-dead", "t-lost", "t-8", "replica-c")));
        auto now = must(store().claimIdempotencyKey(user, "k-dead", body, "t-9", "replica-c"));
        QCOMPARE(now.taskId, std::string("t-7"));
        QCOMPARE(now.claimedBy, std::string("replica-b"));
        QCOMPARE(store().claimIdempotencyKey(user, "a b", body, "t-6", "replica-a").error().code,
                 ErrorCode::InvalidArgument);
        QCOMPARE(
            store().claimIdempotencyKey(user, std::string(256, 'k'), body, "t-6", "replica-a").error().code,
            ErrorCode::InvalidArgument);
    }

    // A claim lasts a day: within it the key answers its task; after it the key is new again (and another
    // user's claim of the same key is untouched).
    void idempotencyKeysExpire() {
        const auto user = must(store().addUser("idem-late", "default")).account.userId;
        const auto other = must(store().addUser("idem-late-other", "default")).account.userId;
        const std::string body = R"({"prompt":"hi","workspace":"up"})";
        const auto start = Clock::now();
        const auto lifetime = AccountStore::kIdempotencyKeyLifetime;
        QCOMPARE(must(store().claimIdempotencyKey(user, "day", body, "t-a", "replica-a", start)).outcome,
                 IdempotencyClaim::Outcome::Claimed);
        QCOMPARE(must(store().claimIdempotencyKey(other, "day", body, "t-o", "replica-a", start)).outcome,
                 IdempotencyClaim::Outcome::Claimed);
        const auto almost = start + lifetime - std::chrono::minutes(1);
        auto replay = must(store().claimIdempotencyKey(user, "day", body + " ", "t-b", "replica-a", almost));
        QCOMPARE(replay.outcome, IdempotencyClaim::Outcome::Conflict);
        QCOMPARE(replay.taskId, std::string("t-a"));
        const auto later = start + lifetime + std::chrono::minutes(1);
        auto again = must(store().claimIdempotencyKey(user, "day", body + " ", "t-c", "replica-a", later));
        QCOMPARE(again.outcome, IdempotencyClaim::Outcome::Claimed);
        QCOMPARE(again.taskId, std::string("t-c"));
        QCOMPARE(must(store().claimIdempotencyKey(other, "day", body, "t-p", "replica-a", almost)).taskId,
                 std::string("t-o"));
    }

    // A lease is one replica's while it lives: another takes it only once it expired (by the database's
    // clock), of many taking a free one at once exactly one gets it, and a renewal keeps what the replica
    // names and drops the rest.
    void taskLeasesHaveOneHolder() {
        using std::chrono::milliseconds;
        const milliseconds live(60000), expired(-1000); // an expired one: as if its holder stopped a while ago
        QVERIFY(must(store().takeLease("t-lease-1", "replica-a", live)));
        QVERIFY(!must(store().takeLease("t-lease-1", "replica-b", live)));
        QVERIFY(!must(store().takeLease("t-lease-1", "replica-b", live, "replica-c"))); // c is not its holder
        QVERIFY(must(store().takeLease("t-lease-1", "replica-a", live))); // its own: renewed
        QVERIFY(must(store().heldElsewhere("t-lease-1", "replica-b")));
        QVERIFY(!must(store().heldElsewhere("t-lease-1", "replica-a")));

        QVERIFY(must(store().takeLease("t-lease-2", "replica-a", expired)));
        QVERIFY(!must(store().heldElsewhere("t-lease-2", "replica-b")));
        QVERIFY(must(store().takeLease("t-lease-2", "replica-b", live))); // taken over
        QVERIFY(must(store().heldElsewhere("t-lease-2", "replica-a")));

        // replica-a renews t-lease-1 and t-lease-2 and names nothing else: t-lease-2 is no longer its own.
        QVERIFY(must(store().takeLease("t-lease-3", "replica-a", live)));
        const auto renewed = must(store().renewLeases("replica-a", {"t-lease-1", "t-lease-2"}, live));
        QCOMPARE(renewed, std::vector<std::string>{"t-lease-1"});
        auto alive = must(store().liveLeases());
        std::sort(alive.begin(), alive.end());
        using Lease = std::pair<std::string, std::string>;
        QCOMPARE(alive, (std::vector<Lease>{{"t-lease-1", "replica-a"}, {"t-lease-2", "replica-b"}})); // 3 dropped
        must(store().releaseLease("t-lease-1", "replica-b")); // not b's: kept
        QVERIFY(must(store().heldElsewhere("t-lease-1", "replica-b")));
        must(store().releaseLease("t-lease-1", "replica-a"));
        QVERIFY(!must(store().heldElsewhere("t-lease-1", "replica-b")));

        // A renewal takes again a lease no live holder has (one let go by a replica that found this one alive).
        QVERIFY(must(store().takeLease("t-lease-6", "replica-a", expired)));
        must(store().releaseLease("t-lease-6", "replica-a"));
        auto retaken = must(store().renewLeases("replica-a", {"t-lease-1", "t-lease-6"}, live));
        std::sort(retaken.begin(), retaken.end());
        QCOMPARE(retaken, (std::vector<std::string>{"t-lease-1", "t-lease-6"}));

        // A holder known dead (a replica of this machine whose process is gone) holds nothing.
        QVERIFY(must(store().takeLease("t-lease-5", "replica-dead", live)));
        QVERIFY(must(store().takeLease("t-lease-5", "replica-a", live, "replica-dead")));
        QVERIFY(must(store().heldElsewhere("t-lease-5", "replica-dead")));

        // Eight replicas take one expired lease at once, each on its own connection: one gets it.
        QVERIFY(must(store().takeLease("t-lease-4", "replica-dead", expired)));
        std::vector<std::thread> threads;
        std::atomic<int> winners{0}, failures{0};
        for (int i = 0; i < 8; ++i)
            threads.emplace_back([&, i] {
                auto own = AccountStore::open(m_server->url().toStdString());
                auto taken = own ? own->takeLease("t-lease-4", "replica-" + std::to_string(i), live)
                                 : Result<bool>(own.error());
                if (!taken)
                    ++failures;
                else if (*taken)
                    ++winners;
            });
        for (auto& thread : threads)
            thread.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(winners.load(), 1);
    }

    // The tasks due for removal, as warrend's sweep asks: final, finished longer ago than the shortest period
    // set (serve's, the user's, the tenant's); none set, or a finish time that does not read, never due.
    void tasksDueForRemovalFollowTheShortestPeriod() {
        const std::string url = m_server->url().toStdString();
        auto tasks = must(control::PgStore::open(url));
        const NewUser kept = must(store().addUser("ret-kept", "retention-tenant"));
        const NewUser shorter = must(store().addUser("ret-short", "retention-tenant"));
        must(store().setTenantQuota("retention-tenant", {{LimitName::RetentionDays, 30}}));
        must(store().setUserQuota("ret-short", {{LimitName::RetentionDays, 5}}));
        const auto add = [&](const std::string& id, const NewUser& owner, control::TaskStatus status,
                             int daysAgo, std::string finishedAt = {}) {
            auto task = test::sampleTask(id, "2026-01-01T00:00:00.000Z");
            task.status = status;
            task.finishedAt = finishedAt.empty()
                                  ? protocol::formatTimestamp(std::chrono::system_clock::now() -
                                                              std::chrono::hours(24 * daysAgo))
                                  : finishedAt;
            must(tasks->insertTask(task));
            must(store().recordTask(owner.account.userId, id, std::nullopt));
        };
        add("t-ret-10-kept", kept, control::TaskStatus::Succeeded, 10);     // 10 < the tenant's 30
        add("t-ret-40-kept", kept, control::TaskStatus::Failed, 40);        // due
        add("t-ret-10-short", shorter, control::TaskStatus::Cancelled, 10); // due: the user's 5
        add("t-ret-10-paused", shorter, control::TaskStatus::Paused, 10);   // not final
        add("t-ret-bad-time", shorter, control::TaskStatus::Failed, 0, "last week");
        auto due = must(store().tasksDueForRemoval(0, 100));
        std::sort(due.begin(), due.end());
        QCOMPARE(due, (std::vector<std::string>{"t-ret-10-short", "t-ret-40-kept"}));
        // serve's period binds when shorter; once marked removed, a task is not due again.
        due = must(store().tasksDueForRemoval(7, 100));
        std::sort(due.begin(), due.end());
        QCOMPARE(due, (std::vector<std::string>{"t-ret-10-kept", "t-ret-10-short", "t-ret-40-kept"}));
        auto removed = must(tasks->task("t-ret-40-kept"));
        removed->removedAt = "2026-12-07T00:00:00.000Z";
        must(tasks->updateTask(*removed));
        QCOMPARE(must(store().tasksDueForRemoval(7, 1)).size(), std::size_t{1}); // at most limit
        due = must(store().tasksDueForRemoval(7, 100));
        QCOMPARE(std::count(due.begin(), due.end(), std::string("t-ret-40-kept")), 0);
    }

    // A replica that lost a task's lease (stopped past it, then continued) must not add to the task's events:
    // the new holder numbers them now. The database refuses them; other tasks' events of the same batch are
    // kept (EventWriter stores a refused batch row by row).
    void eventsOfATaskAnotherReplicaHoldsAreRefused() {
        using std::chrono::milliseconds;
        const std::string url = m_server->url().toStdString();
        auto asA = must(control::PgStore::open(url, "replica-a")); // the events table first
        must(store().fenceEventWrites());
        must(store().fenceEventWrites()); // again at the next start: replaced, not doubled
        for (const char* id : {"t-fence-1", "t-fence-2"})
            must(asA->insertTask(test::sampleTask(id, "2026-12-07T10:00:00Z")));
        QVERIFY(must(store().takeLease("t-fence-1", "replica-b", milliseconds(60000))));

        must(asA->appendEvents({test::sampleEvent("t-fence-2", 1)})); // no lease: anyone's
        const auto refused = asA->appendEvents({test::sampleEvent("t-fence-2", 2), test::sampleEvent("t-fence-1", 1)});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(refused.error().message.find("task t-fence-1 runs on replica replica-b") != std::string::npos,
                 refused.error().message.c_str());
        QCOMPARE(must(asA->lastSeq("t-fence-2")), std::uint64_t{1}); // the whole statement: nothing of it

        // Through the writer: the refused task's row is dropped and said, the other task's stored.
        std::vector<std::string> problems;
        std::mutex problemsMutex;
        auto writer = must(control::EventWriter::open(
            control::storeOpener(url, "replica-a"),
            [&](std::string problem) {
                std::lock_guard lock(problemsMutex);
                problems.push_back(std::move(problem));
            },
            [] {}));
        writer->append({test::sampleEvent("t-fence-2", 2), test::sampleEvent("t-fence-1", 1),
                        test::sampleEvent("t-fence-2", 3)});
        writer->flush();
        const auto committed = writer->takeCommitted();
        QCOMPARE(committed.size(), std::size_t{3});
        QVERIFY(!committed[0].dropped && committed[1].dropped && !committed[2].dropped);
        QCOMPARE(must(asA->lastSeq("t-fence-2")), std::uint64_t{3});
        QCOMPARE(must(asA->lastSeq("t-fence-1")), std::uint64_t{0});
        {
            std::lock_guard lock(problemsMutex);
            QVERIFY(!problems.empty());
        }

        // The holder writes; so does a connection that names no writer (an operator's tool).
        auto asB = must(control::PgStore::open(url, "replica-b"));
        must(asB->appendEvents({test::sampleEvent("t-fence-1", 1)}));
        auto unnamed = must(control::PgStore::open(url));
        must(unnamed->appendEvents({test::sampleEvent("t-fence-1", 2)}));
        // Once the lease has expired, nobody else runs the task: a's events are stored again.
        QVERIFY(must(store().takeLease("t-fence-1", "replica-b", milliseconds(-1000))));
        must(asA->appendEvents({test::sampleEvent("t-fence-1", 3)}));
    }

    void cleanupTestCase() {
        m_store.reset();
        m_server.reset();
    }
};

QTEST_GUILESS_MAIN(TestAccountStore)
#include "tst_account_store.moc"
