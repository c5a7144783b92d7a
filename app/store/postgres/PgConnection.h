#pragma once
// One open libpq connection to PostgreSQL, and the one way the store talks to it: exec() sends a statement
// with text parameters ($1, $2, ...) and hands back its rows as optional strings (nullopt for NULL).
// Errors are values whose message says what failed and what to do, and whose code tells the caller what
// it may do next:
//   - ErrorCode::Unavailable: the connection is lost or the server is shutting down or starting; the
//     statement may or may not have run (a COMMIT in particular): open a new connection and retry, after
//     checking what is stored.
//   - ErrorCode::InvalidArgument: the statement was refused for its content (a duplicate key, a missing
//     task, bad text); retrying it changes nothing.
//   - ErrorCode::System: anything else the server refused (out of disk, a deadlock, a bug).

#include "common/Result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;

namespace warren::control {

using PgParam = std::optional<std::string>; // nullopt binds NULL

// One row of a result: column values as text, nullopt for NULL.
class PgRow {
public:
    explicit PgRow(std::vector<std::optional<std::string>> values) : m_values(std::move(values)) {}
    const std::optional<std::string>& at(std::size_t column) const { return m_values.at(column); }
    std::string text(std::size_t column) const { return at(column).value_or(std::string()); }
    std::uint64_t uint(std::size_t column) const; // 0 for NULL or anything not a non-negative integer
    std::optional<bool> optionalBool(std::size_t column) const; // "t"/"f", nullopt for NULL
    std::size_t size() const { return m_values.size(); }

private:
    std::vector<std::optional<std::string>> m_values;
};

struct PgReply {
    std::vector<PgRow> rows;
    std::uint64_t affected = 0; // rows inserted, updated or deleted (PQcmdTuples)
};

// What PostgreSQL said when it refused a statement: its SQLSTATE ("23505", ...) and the detail line
// ("Key (task_id, seq)=(t-1, 3) already exists.", empty when none).
struct PgRefused {
    std::string_view sqlstate;
    std::string_view detail;
};
// The caller's own error for a refusal (a duplicate task id, a missing task), or nullopt for the
// connection's general message.
using PgRefusal = std::function<std::optional<Error>(const PgRefused& refused)>;

// A NOTIFY heard on a channel the connection LISTENs on.
struct PgNotification {
    std::string channel;
    std::string payload;
};

// What receive() found waiting: the notifications, and whether the statement send() sent was answered.
struct PgReceived {
    std::vector<PgNotification> notifications;
    bool answered = false;
};

class PgConnection {
public:
    // url: postgresql://..., postgres://... or a conninfo string ("host=/run/postgresql dbname=warren").
    // A URL libpq cannot parse is InvalidArgument; a server that cannot be reached is Unavailable.
    static Result<PgConnection> open(const std::string& url);

    PgConnection(PgConnection&& other) noexcept;
    PgConnection& operator=(PgConnection&& other) noexcept;
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;
    ~PgConnection();

    // what completes "cannot ..." in the message ("add task t-1").
    Result<PgReply> exec(const std::string& what, const char* sql, const std::vector<PgParam>& params = {},
                         const PgRefusal& refusal = {});
    // Several statements without parameters in one round trip (a migration's script).
    Status execScript(const std::string& what, std::string_view sql);

    // observer hears every error exec and execScript return from now on (EngineMetrics' database errors).
    void observeErrors(std::function<void(const Error&)> observer) { m_observer = std::move(observer); }

    // The same connection for an event loop, which must never wait on the database (warrend's
    // TaskNotifications): beginOpen starts connecting and returns at once (only a host name's lookup may
    // wait); then, each time socket() is ready for what the last answer said (Write after beginOpen),
    // continueOpen takes the next step, until it says Ready. socket() may change between the steps. No
    // step has a time limit: the caller gives up on its own clock. Unavailable: it could not connect.
    enum class OpenWait { Read, Write, Ready };
    static Result<PgConnection> beginOpen(const std::string& url);
    Result<OpenWait> continueOpen();
    int socket() const; // -1 when there is none
    // Sends one statement without parameters and returns without its answer, which receive() reports.
    // (Written at once: a short statement on an idle connection fits the socket's buffer.)
    Status send(const std::string& what, const std::string& sql);
    // Reads what the server sent, without waiting: call it when socket() is readable. Unavailable: the
    // connection is lost (the server restarted): open another; an error answer to send()'s statement is
    // System.
    Result<PgReceived> receive(const std::string& what);

    bool inTransaction() const; // a transaction is open (or failed and not yet rolled back)
    void reopenIfLost();
    bool isLost() const;        // libpq considers the connection broken
    // Where it is connected, without a password: "warren on /tmp/x:5432", for messages.
    const std::string& where() const { return m_where; }
    pg_conn* handle() const { return m_conn; }

private:
    PgConnection(pg_conn* conn, std::string where) : m_conn(conn), m_where(std::move(where)) {}
    // What libpq made of a connection it made or began: out of memory (null), failed (unreachable), or ours.
    static Result<PgConnection> adopt(pg_conn* conn, bool failed);
    Error lostError(const std::string& what, const std::string& message) const;
    // A statement that failed with no refusal of the caller's: the connection lost (or the server going
    // away, by its SQLSTATE; null: none), else the server's error.
    Error statementFailed(const std::string& what, const std::string& message, const char* state) const;
    Error observed(Error error) const; // told to the observer, then returned

    pg_conn* m_conn = nullptr;
    std::string m_where;
    std::function<void(const Error&)> m_observer;
};

// A transaction that rolls back unless committed, so that every early return leaves the database as it
// was. A COMMIT whose answer is lost is Unavailable: the caller cannot know whether it happened.
class PgTransaction {
public:
    static Result<PgTransaction> begin(PgConnection& connection, const std::string& what);

    PgTransaction(PgTransaction&& other) noexcept;
    PgTransaction& operator=(PgTransaction&&) = delete;
    PgTransaction(const PgTransaction&) = delete;
    PgTransaction& operator=(const PgTransaction&) = delete;
    ~PgTransaction();

    Status commit(const std::string& what);

private:
    explicit PgTransaction(PgConnection& connection) : m_connection(&connection) {}
    PgConnection* m_connection = nullptr;
};

// A PostgreSQL array literal of text ('{"a","b\"c",NULL}') for a $n::text[] parameter, so that a batch is
// one statement (unnest). A value holding a NUL byte cannot be PostgreSQL text: InvalidArgument.
Result<std::string> pgTextArray(const std::vector<PgParam>& values);

// True when the URL names PostgreSQL (postgresql:// or postgres://), as opposed to a file path.
bool isPostgresUrl(std::string_view url);

} // namespace warren::control
