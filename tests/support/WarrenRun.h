#pragma once
// Running the `warren` CLI in tests: each test passes its own --data-dir; sanitizer builds get the sandbox
// profile layer their agent needs (WARREN_SANDBOX_PROFILE).

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

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

// Runs `warren ARGS --data-dir DATA` to its end (timeout: 120 s), with stdin closed.
WarrenResult runWarren(const QStringList& args, const QString& dataDir,
                       const QProcessEnvironment& environment = QProcessEnvironment());

// Starts `warren ARGS --data-dir DATA` with its stdout read by the caller.
void startWarren(QProcess& process, const QStringList& args, const QString& dataDir,
                 const QProcessEnvironment& environment = QProcessEnvironment());

} // namespace warren::test
