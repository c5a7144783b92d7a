#pragma once
// Running the `warren` CLI in tests: each test passes its own --data-dir; sanitizer builds get the sandbox
// profile layer their agent needs (WARREN_SANDBOX_PROFILE).

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace warren::test {

QString warrenBinary(); // $WARREN_CLI

struct WarrenResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// The environment for `warren`: the caller's, plus the sanitizer profile layer (written into dataDir) when
// the agent is not the static release build, and no model provider unless extra sets one.
QProcessEnvironment warrenEnvironment(const QString& dataDir);

inline constexpr int kWarrenTimeoutMs = 240000;

// Runs `warren ARGS --data-dir DATA` to its end, with stdin closed, while this process's event loop keeps
// running (a mock model server in the test goes on answering).
WarrenResult runWarren(const QStringList& args, const QString& dataDir,
                       const QProcessEnvironment& environment = QProcessEnvironment());

// `warren secrets set ARGS --data-dir DATA` with value on its stdin.
WarrenResult setSecret(const QStringList& args, const QByteArray& value, const QString& dataDir);

// Runs it as runWarren does, but with stdin and stdout a terminal (a pseudo-terminal this process reads,
// into out), as a user at a shell runs it; stderr stays a pipe.
WarrenResult runWarrenOnTerminal(const QStringList& args, const QString& dataDir,
                                 const QProcessEnvironment& environment = QProcessEnvironment());

// Starts `warren ARGS --data-dir DATA` with its stdout read by the caller.
void startWarren(QProcess& process, const QStringList& args, const QString& dataDir,
                 const QProcessEnvironment& environment = QProcessEnvironment());

// Reads the --json events of a warren started so until one satisfies done, appending the lines read to out
// when given; false when warren ends, or writes nothing for timeoutMs, first.
bool readEventsUntil(QProcess& process, const std::function<bool(const nlohmann::json&)>& done,
                     QByteArray* out = nullptr, int timeoutMs = 120000);

// path written whole with content, its directories made; false when it could not be.
bool writeTestFile(const QString& path, const QByteArray& content);
// path's bytes; empty when it cannot be read.
QByteArray readTestFile(const QString& path);

// One JSON value per non-empty line (--json output, events.jsonl); lines that are not JSON are skipped.
std::vector<nlohmann::json> jsonLines(const QByteArray& text);

// A file under dir (at any depth, hidden ones too) that holds bytes, such as a key that must be nowhere;
// empty when none does.
QString fileHolding(const QString& dir, const QByteArray& bytes);

} // namespace warren::test
