#include "app/store/postgres/PgConnection.h"

#include <array>
#include <charconv>
#include <libpq-fe.h>
#include <memory>
#include <poll.h>
#include <utility>

namespace warren::control {

namespace {

struct ResultDeleter {
    void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// libpq's messages end in a newline and sometimes span lines: one line for ours.
std::string oneLine(const char* message) {
    std::string text = message ? message : "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    for (char& c : text)
        if (c == '\n')
            c = ' ';
    return text.empty() ? "no message from libpq" : text;
}

// Connection exceptions (class 08) and a server shutting down or starting (57P01..57P03) mean the
// statement never got a definite answer: the caller may reconnect and retry.
bool isUnavailableState(std::string_view state) {
    return state.substr(0, 2) == "08" || state == "57P01" || state == "57P02" || state == "57P03";
}

// Data exceptions (22: bad text, out of range) and integrity violations (23: keys, foreign keys,
// checks) are refusals of the rows themselves.
bool isContentState(std::string_view state) {
    return state.substr(0, 2) == "22" || state.substr(0, 2) == "23";
}

std::string describe(PGconn* conn) {
    const char* db = PQdb(conn);
    const char* host = PQhost(conn);
    const char* port = PQport(conn);
    std::string where = db && *db ? db : "the database";
    where += " on ";
    where += host && *host ? host : "the default socket";
    if (port && *port)
        where += std::string(":") + port;
    return where;
}

void ignoreNotice(void*, const char*) {} // "relation already exists, skipping" is not news

// An error naming what libpq could not parse in the URL, or nullopt when it can.
std::optional<Error> unparsable(const std::string& url) {
    char* parseError = nullptr;
    PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parseError);
    if (parsed) {
        PQconninfoFree(parsed);
        return std::nullopt;
    }
    std::string message = oneLine(parseError);
    PQfreemem(parseError);
    return makeError(ErrorCode::InvalidArgument,
                     "the database URL is not one PostgreSQL understands: " + message +
                         "; use postgresql://USER@HOST:PORT/DATABASE or a conninfo "
                         "string");
}

// Ours come first: the URL is expanded in place of dbname, and what it sets overrides them.
constexpr const char* kConnectKeys[] = {"connect_timeout", "client_encoding", "application_name", "dbname",
                                        nullptr};
std::array<const char*, 5> connectValues(const std::string& url) {
    return {"10", "UTF8", "warren", url.c_str(), nullptr};
}

Error unreachable(PGconn* conn, const std::string& where) {
    return makeError(ErrorCode::Unavailable, "cannot reach PostgreSQL at " + where + ": " +
                                                 oneLine(PQerrorMessage(conn)) +
                                                 "; is it running, and does the database URL name the right "
                                                 "host, port, database and user?");
}

} // namespace

std::uint64_t PgRow::uint(std::size_t column) const {
    const auto& value = at(column);
    if (!value)
        return 0;
    std::uint64_t out = 0;
    const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), out);
    return error == std::errc() && end == value->data() + value->size() ? out : 0;
}

std::optional<bool> PgRow::optionalBool(std::size_t column) const {
    const auto& value = at(column);
    if (!value)
        return std::nullopt;
    return *value == "t" || *value == "true" || *value == "1";
}

Result<PgConnection> PgConnection::open(const std::string& url) {
    if (auto refused = unparsable(url))
        return *refused;
    const auto values = connectValues(url);
    PGconn* conn = PQconnectdbParams(kConnectKeys, values.data(), 1);
    return adopt(conn, conn && PQstatus(conn) != CONNECTION_OK);
}

Result<PgConnection> PgConnection::beginOpen(const std::string& url) {
    if (auto refused = unparsable(url))
        return *refused;
    const auto values = connectValues(url);
    PGconn* conn = PQconnectStartParams(kConnectKeys, values.data(), 1);
    return adopt(conn, conn && PQstatus(conn) == CONNECTION_BAD);
}

Result<PgConnection> PgConnection::adopt(PGconn* conn, bool failed) {
    if (!conn)
        return makeError(ErrorCode::System, "cannot connect to PostgreSQL: libpq is out of memory");
    std::string where = describe(conn);
    if (failed) {
        Error error = unreachable(conn, where);
        PQfinish(conn);
        return error;
    }
    PQsetNoticeProcessor(conn, ignoreNotice, nullptr);
    return PgConnection(conn, std::move(where));
}

Result<PgConnection::OpenWait> PgConnection::continueOpen() {
    switch (PQconnectPoll(m_conn)) {
    case PGRES_POLLING_READING:
        return OpenWait::Read;
    case PGRES_POLLING_WRITING:
        return OpenWait::Write;
    case PGRES_POLLING_OK:
        m_where = describe(m_conn); // the host it reached, of those the URL may list
        return OpenWait::Ready;
    default:
        return unreachable(m_conn, m_where);
    }
}

int PgConnection::socket() const {
    return m_conn ? PQsocket(m_conn) : -1;
}

Status PgConnection::send(const std::string& what, const std::string& sql) {
    if (PQsendQuery(m_conn, sql.c_str()) == 1)
        return Ok{};
    return statementFailed(what, oneLine(PQerrorMessage(m_conn)), nullptr);
}

Result<PgReceived> PgConnection::receive(const std::string& what) {
    // A server going down says so and closes: the goodbye reads as a notice, the close as a failed read.
    if (!PQconsumeInput(m_conn) || isLost())
        return observed(lostError(what, oneLine(PQerrorMessage(m_conn))));
    PgReceived received;
    while (!PQisBusy(m_conn)) {
        ResultPtr result(PQgetResult(m_conn));
        if (!result)
            break; // no statement is waiting for its answer
        const ExecStatusType status = PQresultStatus(result.get());
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
            received.answered = true;
            continue;
        }
        return statementFailed(what, oneLine(PQresultErrorMessage(result.get())),
                               PQresultErrorField(result.get(), PG_DIAG_SQLSTATE));
    }
    while (PGnotify* notify = PQnotifies(m_conn)) {
        received.notifications.push_back({notify->relname, notify->extra ? notify->extra : ""});
        PQfreemem(notify);
    }
    return received;
}

PgConnection::PgConnection(PgConnection&& other) noexcept
    : m_conn(std::exchange(other.m_conn, nullptr)), m_where(std::move(other.m_where)),
      m_observer(std::move(other.m_observer)) {}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
    if (this != &other) {
        if (m_conn)
            PQfinish(m_conn);
        m_conn = std::exchange(other.m_conn, nullptr);
        m_where = std::move(other.m_where);
        m_observer = std::move(other.m_observer);
    }
    return *this;
}

PgConnection::~PgConnection() {
    if (m_conn)
        PQfinish(m_conn);
}

Error PgConnection::observed(Error error) const {
    if (m_observer)
        m_observer(error);
    return error;
}

Error PgConnection::statementFailed(const std::string& what, const std::string& message, const char* state) const {
    if (isLost() || (state && isUnavailableState(state)))
        return observed(lostError(what, message));
    return observed(
        makeError(ErrorCode::System, "cannot " + what + " in PostgreSQL at " + m_where + ": " + message));
}

Error PgConnection::lostError(const std::string& what, const std::string& message) const {
    return makeError(ErrorCode::Unavailable, "lost the connection to PostgreSQL at " + m_where +
                                                 " while trying to " + what + ": " + message +
                                                 "; the server may have restarted: reconnect and retry");
}

Result<PgReply> PgConnection::exec(const std::string& what, const char* sql,
                                   const std::vector<PgParam>& params, const PgRefusal& refusal) {
    reopenIfLost();
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& param : params)
        values.push_back(param ? param->c_str() : nullptr);
    ResultPtr result(PQexecParams(m_conn, sql, static_cast<int>(values.size()), nullptr, values.data(),
                                  nullptr, nullptr, 0));
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        PgReply reply;
        const int rows = PQntuples(result.get());
        const int columns = PQnfields(result.get());
        reply.rows.reserve(static_cast<std::size_t>(rows));
        for (int r = 0; r < rows; ++r) {
            std::vector<std::optional<std::string>> row;
            row.reserve(static_cast<std::size_t>(columns));
            for (int c = 0; c < columns; ++c) {
                if (PQgetisnull(result.get(), r, c))
                    row.emplace_back();
                else
                    row.emplace_back(std::string(PQgetvalue(result.get(), r, c),
                                                 static_cast<std::size_t>(PQgetlength(result.get(), r, c))));
            }
            reply.rows.emplace_back(std::move(row));
        }
        const char* affected = PQcmdTuples(result.get());
        if (affected && *affected)
            std::from_chars(affected, affected + std::char_traits<char>::length(affected), reply.affected);
        return reply;
    }
    const char* stateField = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    const std::string state = stateField ? stateField : "";
    const std::string message = oneLine(result ? PQresultErrorMessage(result.get()) : PQerrorMessage(m_conn));
    if (isLost() || isUnavailableState(state))
        return observed(lostError(what, message));
    if (refusal && !state.empty()) {
        const char* detail = PQresultErrorField(result.get(), PG_DIAG_MESSAGE_DETAIL);
        if (auto own = refusal(PgRefused{state, detail ? detail : ""}))
            return observed(*own);
    }
    const ErrorCode code = isContentState(state) ? ErrorCode::InvalidArgument : ErrorCode::System;
    return observed(makeError(code, "cannot " + what + " in PostgreSQL at " + m_where + ": " + message +
                                        (state.empty() ? std::string() : " (SQLSTATE " + state + ")") +
                                        (code == ErrorCode::System ? "; check the server's log" : "")));
}

Status PgConnection::execScript(const std::string& what, std::string_view sql) {
    reopenIfLost();
    const std::string text(sql);
    ResultPtr result(PQexec(m_conn, text.c_str()));
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        return Ok{};
    return statementFailed(what, oneLine(result ? PQresultErrorMessage(result.get()) : PQerrorMessage(m_conn)),
                           result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr);
}

bool PgConnection::inTransaction() const {
    const PGTransactionStatusType status = PQtransactionStatus(m_conn);
    return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE;
}

// A connection lost before a statement is opened again: nothing of this statement was sent, so sending it
// on the new connection is safe, and a long-lived connection (warrend's) comes back by itself after the
// server restarted. Lost means libpq saw it fail, or, between transactions, that the server closed it or
// said it would (an idle connection has nothing to read; a restart sends a notice and closes). Inside a
// transaction nothing is reopened: that transaction is gone, and its next statement says so.
void PgConnection::reopenIfLost() {
    if (!m_conn)
        return;
    bool lost = PQstatus(m_conn) == CONNECTION_BAD;
    if (!lost && PQtransactionStatus(m_conn) == PQTRANS_IDLE) {
        pollfd socket{PQsocket(m_conn), POLLIN, 0};
        lost = ::poll(&socket, 1, 0) != 0; // the server's goodbye, its end of the connection, or an error
    }
    if (lost)
        PQreset(m_conn);
}

bool PgConnection::isLost() const {
    return !m_conn || PQstatus(m_conn) == CONNECTION_BAD;
}

Result<PgTransaction> PgTransaction::begin(PgConnection& connection, const std::string& what) {
    if (auto begun = connection.exec("start a transaction to " + what, "BEGIN"); !begun)
        return begun.error();
    return PgTransaction(connection);
}

PgTransaction::PgTransaction(PgTransaction&& other) noexcept
    : m_connection(std::exchange(other.m_connection, nullptr)) {}

PgTransaction::~PgTransaction() {
    if (m_connection && !m_connection->isLost() && m_connection->inTransaction())
        (void)m_connection->exec("roll back", "ROLLBACK");
}

Status PgTransaction::commit(const std::string& what) {
    auto committed = m_connection->exec("commit " + what, "COMMIT");
    if (!committed)
        return committed.error(); // the destructor rolls back what is left of it
    m_connection = nullptr;
    return Ok{};
}

Result<std::string> pgTextArray(const std::vector<PgParam>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        if (!values[i]) {
            out += "NULL";
            continue;
        }
        out += '"';
        for (const char c : *values[i]) {
            if (c == '\0')
                return makeError(ErrorCode::InvalidArgument,
                                 "a text value holds a NUL byte, which PostgreSQL text cannot store");
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

bool isPostgresUrl(std::string_view url) {
    return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

} // namespace warren::control
