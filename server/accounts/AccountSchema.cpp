#include "server/accounts/AccountSchema.h"

#include "app/store/postgres/PgStore.h"

#include <array>
#include <string>
#include <string_view>

namespace warren::accounts {

using control::PgConnection;
using control::PgTransaction;

namespace {

// Any fixed number, the same in every warrend: pg_advisory_xact_lock's key for this schema's migrations.
constexpr const char* kMigrationLockKey = "7427013561088410113";

// One check per statement (its added rows as a transition table), with the database's clock, as the
// leases are taken: a replica's batch of events is refused whole when any of its tasks is another's now;
// EventWriter then stores it row by row, so only that task's rows are lost (and reported).
// Its setting and SQLSTATE are the store's constants (PgStore.h), put in by fenceSql.
constexpr const char* kFenceEvents = R"sql(
DO $fence$ BEGIN
CREATE OR REPLACE FUNCTION warren_fence_events() RETURNS trigger LANGUAGE plpgsql AS $rule$
DECLARE
    writer text := current_setting('WARREN_WRITER_SETTING', true);
    taken record;
BEGIN
    IF writer IS NULL OR writer = '' THEN
        RETURN NULL;
    END IF;
    SELECT l.task_id, l.holder INTO taken FROM added a JOIN task_leases l ON l.task_id = a.task_id
        WHERE l.holder <> writer AND l.expires_at > clock_timestamp() LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'events of a task another replica runs'
            USING ERRCODE = 'WARREN_REFUSED_STATE',
                  DETAIL = 'task ' || taken.task_id || ' runs on replica ' || taken.holder ||
                           ' now (its lease is live), so this replica''s events for it are refused';
    END IF;
    RETURN NULL;
END
$rule$;
IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'events_fenced' AND tgrelid = 'events'::regclass) THEN
    CREATE TRIGGER events_fenced AFTER INSERT ON events REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION warren_fence_events();
END IF;
END $fence$
)sql";

std::string fenceSql() {
    std::string sql = kFenceEvents;
    const auto put = [&sql](std::string_view name, std::string_view value) {
        sql.replace(sql.find(name), name.size(), value);
    };
    put("WARREN_WRITER_SETTING", control::kWriterSetting);
    put("WARREN_REFUSED_STATE", control::kRefusedByRuleState);
    return sql;
}

// Quotas are columns of the tenant's and the user's row: NULL does not bind. The sandbox limits are at
// least 1 (0 would read as "no limit" to the sandbox); max_concurrent and tokens_per_month may be 0.
#define WARREN_QUOTA_COLUMNS                                                                                 \
    "max_concurrent bigint CHECK (max_concurrent >= 0),"                                                     \
    "memory_mb bigint CHECK (memory_mb >= 1),"                                                               \
    "pids bigint CHECK (pids >= 1),"                                                                         \
    "cpu_seconds bigint CHECK (cpu_seconds >= 1),"                                                           \
    "timeout_sec bigint CHECK (timeout_sec >= 1),"                                                           \
    "file_size_mb bigint CHECK (file_size_mb >= 1),"                                                         \
    "tokens_per_month bigint CHECK (tokens_per_month >= 0),"

const std::array<std::string_view, 14> kMigrations = {
    // 1: tenants, users, keys, reservations, token use, ownership, idempotency keys.
    "CREATE TABLE tenants ("
    "  id bigserial PRIMARY KEY,"
    "  name text NOT NULL UNIQUE," WARREN_QUOTA_COLUMNS "  created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE users ("
    "  id bigserial PRIMARY KEY,"
    "  name text NOT NULL UNIQUE,"
    "  tenant_id bigint NOT NULL REFERENCES tenants(id)," WARREN_QUOTA_COLUMNS
    "  created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX users_tenant ON users(tenant_id);"
    "CREATE TABLE api_keys ("
    "  id bigserial PRIMARY KEY,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  key_hash text NOT NULL UNIQUE,"
    "  display_prefix text NOT NULL,"
    "  created_at timestamptz NOT NULL DEFAULT now(),"
    "  revoked_at timestamptz);"
    "CREATE INDEX api_keys_user ON api_keys(user_id);"
    "CREATE INDEX api_keys_prefix ON api_keys(display_prefix);"
    "CREATE TABLE task_reservations ("
    "  task_id text PRIMARY KEY,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  tenant_id bigint NOT NULL REFERENCES tenants(id),"
    "  created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX task_reservations_tenant ON task_reservations(tenant_id, user_id);"
    "CREATE TABLE token_usage ("
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  month date NOT NULL,"
    "  tokens bigint NOT NULL CHECK (tokens >= 0),"
    "  PRIMARY KEY (user_id, month));"
    "CREATE TABLE upload_owners ("
    "  upload_id text PRIMARY KEY,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  directory text NOT NULL,"
    "  created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE task_owners ("
    "  task_id text PRIMARY KEY,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  upload_id text REFERENCES upload_owners(upload_id),"
    "  tokens_counted bigint NOT NULL DEFAULT 0," // of the task's tokens, those already in token_usage
    "  created_at timestamptz NOT NULL DEFAULT clock_timestamp());"
    "CREATE INDEX task_owners_user ON task_owners(user_id, created_at);"
    "CREATE TABLE idempotency_keys ("
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  key text NOT NULL,"
    "  task_id text NOT NULL,"
    "  request_hash text NOT NULL,"
    "  created_at timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (user_id, key));",
    // 2: the provider keys users store, sealed (AES-256-GCM) with the operator's secret, which the database
    // never sees: a nonce and the ciphertext with its tag, bound to (user_id, provider).
    "CREATE TABLE provider_keys ("
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  provider text NOT NULL,"
    "  nonce bytea NOT NULL CHECK (octet_length(nonce) = 12),"
    "  ciphertext bytea NOT NULL CHECK (octet_length(ciphertext) > 16),"
    "  updated_at timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (user_id, provider));",
    // 3: tasks waiting for a concurrency slot (POST /v1/tasks with "queue": true), in arrival order.
    "CREATE TABLE waiting_tasks ("
    "  position bigserial PRIMARY KEY,"
    "  task_id text NOT NULL UNIQUE,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  created_at timestamptz NOT NULL DEFAULT now());",
    // 4: the secrets bound to hosts users store (DESIGN §12): the value with its binding sealed together,
    // bound to (user_id, name); the hosts and header also in clear, for the list, never trusted for a task.
    "CREATE TABLE user_secrets ("
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  name text NOT NULL,"
    "  hosts text NOT NULL,"
    "  header text NOT NULL,"
    "  nonce bytea NOT NULL CHECK (octet_length(nonce) = 12),"
    "  ciphertext bytea NOT NULL CHECK (octet_length(ciphertext) > 16),"
    "  updated_at timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (user_id, name));",
    // 5: whether a secret's placeholder is also replaced in request bodies (in the sealed binding too; this
    // column is for the list).
    "ALTER TABLE user_secrets ADD COLUMN in_body boolean NOT NULL DEFAULT false;",
    // 6: the secrets the operator sets for every user of a tenant (warrend admin set-secret), sealed as the
    // users' are, bound to (tenant_id, name).
    "CREATE TABLE tenant_secrets ("
    "  tenant_id bigint NOT NULL REFERENCES tenants(id),"
    "  name text NOT NULL,"
    "  hosts text NOT NULL,"
    "  header text NOT NULL,"
    "  in_body boolean NOT NULL DEFAULT false,"
    "  nonce bytea NOT NULL CHECK (octet_length(nonce) = 12),"
    "  ciphertext bytea NOT NULL CHECK (octet_length(ciphertext) > 16),"
    "  updated_at timestamptz NOT NULL DEFAULT now(),"
    "  PRIMARY KEY (tenant_id, name));",
    // 7: the MCP servers the operator gives every user of a tenant (warrend admin set-mcp-servers): the
    // "mcpServers" object of a .mcp.json, checked by the agent's own reader before it is stored, replaced
    // whole.
    "CREATE TABLE tenant_mcp_servers ("
    "  tenant_id bigint PRIMARY KEY REFERENCES tenants(id),"
    "  servers text NOT NULL,"
    "  updated_at timestamptz NOT NULL DEFAULT now());",
    // 8: the webhooks users register (POST /v1/me/webhooks): where task lifecycle events are POSTed, which
    // ones ("task.created,task.finished"), and the secret their bodies are signed with (HMAC-SHA256; warrend
    // needs it in clear to sign, and shows it only in the answer to the registration).
    "CREATE TABLE webhooks ("
    "  id text PRIMARY KEY,"
    "  user_id bigint NOT NULL REFERENCES users(id),"
    "  url text NOT NULL,"
    "  events text NOT NULL,"
    "  secret text NOT NULL,"
    "  created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX webhooks_user ON webhooks(user_id);",
    // 9: the webhook deliveries not yet delivered or given up on, so that a warrend killed or restarted sends
    // them when it starts (at least once): the exact body that is signed, removed with its hook.
    "CREATE TABLE webhook_deliveries ("
    "  id text PRIMARY KEY,"
    "  hook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,"
    "  body text NOT NULL,"
    "  queued_at timestamptz NOT NULL DEFAULT clock_timestamp());"
    "CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(hook_id, queued_at);",
    // 10: a quota of how long a task may only wait for its user before it sleeps (0 would read as "never").
    "ALTER TABLE tenants ADD COLUMN idle_sleep_sec bigint CHECK (idle_sleep_sec >= 1);"
    "ALTER TABLE users ADD COLUMN idle_sleep_sec bigint CHECK (idle_sleep_sec >= 1);",
    // 11: which warrend replica runs each task (DESIGN §15): a lease by the database's clock, renewed while
    // the replica lives, taken over by another once it expired. No reference to the task's row: a lease is
    // taken before the task is stored, so that no other replica adopts it in between.
    "CREATE TABLE task_leases ("
    "  task_id text PRIMARY KEY,"
    "  holder text NOT NULL,"
    "  expires_at timestamptz NOT NULL);"
    "CREATE INDEX task_leases_holder ON task_leases(holder);",
    // 12: requests one replica passes to the replica running the task (an answer, a cancel), and that
    // replica's answer: both notified (kTaskRequestsChannel, kTaskAnswersChannel), removed once read.
    "CREATE TABLE task_requests ("
    "  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  task_id text NOT NULL,"
    "  request text NOT NULL,"
    "  answer text,"
    "  created_at timestamptz NOT NULL DEFAULT clock_timestamp());"
    "CREATE INDEX task_requests_open ON task_requests(task_id) WHERE answer IS NULL;",
    // 13: quotas of how many days a finished task keeps its bulky parts (0 would read as "for ever") and of
    // the disk the owner's uploads, workspaces and task files may take.
    "ALTER TABLE tenants ADD COLUMN retention_days bigint CHECK (retention_days >= 1);"
    "ALTER TABLE users ADD COLUMN retention_days bigint CHECK (retention_days >= 1);"
    "ALTER TABLE tenants ADD COLUMN disk_mb bigint CHECK (disk_mb >= 1);"
    "ALTER TABLE users ADD COLUMN disk_mb bigint CHECK (disk_mb >= 1);",
    // 14: which replica claimed an Idempotency-Key (TaskLeases' holder form), so that a claim whose replica
    // died before its task was recorded can be taken over instead of answering "in progress" for a day.
    "ALTER TABLE idempotency_keys ADD COLUMN claimed_by text NOT NULL DEFAULT '';",
};

#undef WARREN_QUOTA_COLUMNS

} // namespace

int accountSchemaVersion() {
    return static_cast<int>(kMigrations.size());
}

Result<int> storedAccountSchemaVersion(PgConnection& db) {
    const std::string what = "read the account schema version";
    auto exists = db.exec(what, "SELECT to_regclass('accounts_schema_version') IS NOT NULL");
    if (!exists)
        return exists.error();
    if (exists->rows.at(0).optionalBool(0) != true)
        return 0;
    auto reply = db.exec(what, "SELECT coalesce(max(version), 0) FROM accounts_schema_version");
    if (!reply)
        return reply.error();
    return static_cast<int>(reply->rows.at(0).uint(0));
}

Status fenceEventWrites(PgConnection& db) {
    const std::string what = "fence the events by their task's lease";
    auto transaction = PgTransaction::begin(db, what);
    if (!transaction)
        return transaction.error();
    // The migrations' lock: replicas starting at once replace the rule one after the other.
    if (auto locked = db.exec(what, "SELECT pg_advisory_xact_lock($1::bigint)", {std::string(kMigrationLockKey)});
        !locked)
        return locked.error();
    if (auto installed = db.execScript(what, fenceSql()); !installed)
        return installed;
    return transaction->commit(what);
}

Status migrateAccountSchema(PgConnection& db) {
    const std::string what = "migrate the account schema";
    auto transaction = PgTransaction::begin(db, what);
    if (!transaction)
        return transaction.error();
    // Held to the end of the transaction: a second warrend waits here, then finds the work done.
    if (auto locked =
            db.exec(what, "SELECT pg_advisory_xact_lock($1::bigint)", {std::string(kMigrationLockKey)});
        !locked)
        return locked.error();
    if (auto created = db.execScript(what, "CREATE TABLE IF NOT EXISTS accounts_schema_version ("
                                           "  version integer NOT NULL,"
                                           "  applied_at timestamptz NOT NULL DEFAULT now())");
        !created)
        return created.error();
    auto stored = storedAccountSchemaVersion(db);
    if (!stored)
        return stored.error();
    if (*stored > accountSchemaVersion())
        return makeError(ErrorCode::Unsupported,
                         "the account tables in " + db.where() + " are at schema version " +
                             std::to_string(*stored) + ", newer than this warrend knows (" +
                             std::to_string(accountSchemaVersion()) + "); run the warrend that wrote them");
    for (int version = *stored + 1; version <= accountSchemaVersion(); ++version) {
        const std::string step = what + " to version " + std::to_string(version);
        if (auto applied = db.execScript(step, kMigrations[static_cast<std::size_t>(version - 1)]); !applied)
            return applied.error();
        if (auto recorded =
                db.exec(step, "INSERT INTO accounts_schema_version (version) VALUES ($1::integer)",
                        {std::to_string(version)});
            !recorded)
            return recorded.error();
    }
    return transaction->commit(what);
}

} // namespace warren::accounts
