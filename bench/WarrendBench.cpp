#include "bench/WarrendBench.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cstdio>
#include <cstdlib>

namespace warren::bench {

void benchFailed(const char* bench, const QString& what) {
    std::fprintf(stderr, "%s: FAILED: %s\n", bench, qPrintable(what));
    std::exit(1);
}

void writeFiles(const QString& directory, const std::map<QString, QByteArray>& files) {
    for (const auto& [name, content] : files) {
        QFile file(directory + "/" + name);
        QDir().mkpath(QFileInfo(file).path());
        if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
            benchFailed("writeFiles", "cannot write " + file.fileName());
    }
}

QByteArray WarrendBench::taskBody(const QByteArray& script) const {
    return R"({"prompt": "go", "workspace": ")" + upload.toUtf8() + R"(", "script": )" + script + "}";
}

WarrendBench startWarrendBench(const char* bench, const std::map<QString, QByteArray>& workspaceFiles,
                               const QStringList& serveArgs) {
    WarrendBench started;
    QString error;
    started.server = test::WarrendServer::create(&error);
    if (!started.server || !started.server->start(&error, serveArgs))
        benchFailed(bench, error);
    started.key = started.server->addUser("bench");
    if (started.key.isEmpty())
        benchFailed(bench, "warrend admin add-user failed");
    started.scratch = std::make_unique<QTemporaryDir>();
    started.workspace = started.scratch->path() + "/workspace";
    QDir().mkpath(started.workspace);
    writeFiles(started.workspace, workspaceFiles);
    started.upload = started.server->upload(started.key, started.workspace);
    if (started.upload.isEmpty())
        benchFailed(bench, "the workspace's upload failed");
    return started;
}

} // namespace warren::bench
