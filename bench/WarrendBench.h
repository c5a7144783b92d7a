#pragma once
// warrend for a benchmark: the tests' WarrendServer (a PostgreSQL of its own, the server as a process on
// loopback) started with the benchmark's flags, one user, and one upload of a workspace holding the given
// files. A step that fails ends the benchmark with a message (benchmarks report, they do not recover).

#include "tests/support/WarrendServer.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <map>
#include <memory>

namespace warren::bench {

[[noreturn]] void benchFailed(const char* bench, const QString& what);

// Writes each file (relative path -> content) under directory.
void writeFiles(const QString& directory, const std::map<QString, QByteArray>& files);

struct WarrendBench {
    std::unique_ptr<test::WarrendServer> server;
    QString key;    // the user's
    QString upload; // the workspace's upload id
    std::unique_ptr<QTemporaryDir> scratch;
    QString workspace; // the uploaded directory, under scratch

    // POST /v1/tasks body: prompt, the upload, and script (a scripted model's {"turns": [...]}).
    QByteArray taskBody(const QByteArray& script) const;
};

WarrendBench startWarrendBench(const char* bench, const std::map<QString, QByteArray>& workspaceFiles,
                               const QStringList& serveArgs = {});

} // namespace warren::bench
