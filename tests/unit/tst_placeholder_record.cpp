// PlaceholderRecord: a launcher killed after it made placeholders in the workspace (a forked child that
// writes its record, makes them, and _exits without cleaning up) leaves a record that the sweep acts on; the
// sweep removes only what is still an empty placeholder, never follows a symbolic link the workspace's writer
// put in a placeholder's place or on its way, leaves a record whose launcher lives and one of another
// backend, and leaves a workspace that another directory replaced.

#include "sandbox/PlaceholderRecord.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <climits>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren;
using namespace warren::sandbox;

namespace {

QString canonical(const QString& path) {
    char resolved[PATH_MAX];
    return realpath(path.toLocal8Bit().constData(), resolved) ? QString::fromLocal8Bit(resolved) : QString();
}

ProtectionPlan defaultLikePlan() {
    using Kind = ProtectionEntry::Kind;
    return ProtectionPlan{{{".devcontainer", Kind::PlaceholderDir},
                           {".envrc", Kind::PlaceholderFile},
                           {".git", Kind::Pin},
                           {".git/hooks", Kind::PlaceholderDir},
                           {".idea", Kind::PlaceholderDir},
                           {".vscode", Kind::PlaceholderDir}}};
}

// A launcher that records, makes the placeholders (as bwrap would) and is gone without cleaning up: the
// record stays unlocked. True when the child did all of it.
bool crashedLaunch(Backend backend, const std::string& workspace, const ProtectionPlan& plan) {
    const pid_t child = ::fork();
    if (child == 0) {
        auto record = PlaceholderRecord::write(backend, workspace, plan);
        if (!record || !createPlaceholders(workspace, plan))
            ::_exit(1);
        ::_exit(0); // no destructor, no clear(): as after kill -9
    }
    int status = 0;
    return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

QStringList records() {
    return QDir(QString::fromStdString(placeholderRecordDir()))
        .entryList({"rec-*"}, QDir::Files | QDir::Hidden);
}

bool exists(const QString& path) {
    return QFileInfo(path).exists() || QFileInfo(path).isSymLink();
}

} // namespace

class TestPlaceholderRecord : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void crashedLauncherLeavesThemAndTheSweepRemovesThem();
    void whatTheUserPutThereIsLeftAlone();
    void aLinkOnTheWayIsNotFollowed();
    void aLiveLauncherKeepsItsRecord();
    void anotherBackendsRecordIsLeftToItsSweep();
    void aReplacedWorkspaceIsNotTouched();
    void clearRemovesThePlaceholdersAndTheRecord();
    void noPlaceholdersNoRecord();
    void recordedPlaceholdersNameThem();
    void aDirectoryOthersMayEnterIsRefused();

private:
    std::unique_ptr<QTemporaryDir> m_records;
    std::unique_ptr<QTemporaryDir> m_workspaceDir;
    QString m_workspace;
    std::string ws() const { return m_workspace.toStdString(); }
    QString at(const QString& relative) const { return m_workspace + "/" + relative; }
};

// Each test keeps its records in a directory of its own: no record of another test or process is swept.
void TestPlaceholderRecord::init() {
    m_records = std::make_unique<QTemporaryDir>();
    QVERIFY(m_records->isValid());
    QVERIFY(QFile::setPermissions(m_records->path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    qputenv("WARREN_PLACEHOLDER_RECORDS", (m_records->path() + "/records").toLocal8Bit());
    m_workspaceDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspaceDir->isValid());
    m_workspace = canonical(m_workspaceDir->path());
    QVERIFY(QDir(m_workspace).mkpath(".git/objects")); // a repository without hooks
}

void TestPlaceholderRecord::cleanup() {
    m_workspaceDir.reset();
    m_records.reset();
}

void TestPlaceholderRecord::crashedLauncherLeavesThemAndTheSweepRemovesThem() {
    QVERIFY(crashedLaunch(Backend::Bwrap, ws(), defaultLikePlan()));
    for (const char* path : {".envrc", ".vscode", ".idea", ".devcontainer", ".git/hooks"})
        QVERIFY2(exists(at(path)), path); // left behind, as after kill -9
    QCOMPARE(records().size(), 1);

    const PlaceholderSweep sweep = sweepPlaceholderRecords({Backend::Bwrap});
    QCOMPARE(sweep.records, 1u);
    QCOMPARE(sweep.removed.size(), 5u);
    QVERIFY(sweep.kept.empty());
    for (const char* path : {".envrc", ".vscode", ".idea", ".devcontainer", ".git/hooks"})
        QVERIFY2(!exists(at(path)), path);
    QVERIFY(QFileInfo(at(".git/objects")).isDir()); // the pinned directory and what it holds stay
    QVERIFY(records().isEmpty());
}

// After the crash and before the sweep: the user wrote into .envrc and put a file in .devcontainer, and a
// writer of the workspace put a link to a directory outside in .vscode's place.
void TestPlaceholderRecord::whatTheUserPutThereIsLeftAlone() {
    QVERIFY(crashedLaunch(Backend::Bwrap, ws(), defaultLikePlan()));
    QFile envrc(at(".envrc"));
    QVERIFY(envrc.open(QIODevice::WriteOnly) && envrc.write("export A=1\n") > 0);
    envrc.close();
    QFile config(at(".devcontainer/devcontainer.json"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.close();
    QTemporaryDir outside;
    QVERIFY(QDir(outside.path()).mkdir("empty"));
    QVERIFY(QDir().rmdir(at(".vscode")));
    QVERIFY(QFile::link(outside.path() + "/empty", at(".vscode")));

    const PlaceholderSweep sweep = sweepPlaceholderRecords({Backend::Bwrap});
    QCOMPARE(sweep.records, 1u);
    QCOMPARE(QFile(at(".envrc")).size(), 11); // written into: kept
    QVERIFY(QFile::exists(at(".devcontainer/devcontainer.json")));
    QVERIFY(QFileInfo(at(".vscode")).isSymLink());         // not ours: kept
    QVERIFY(QFileInfo(outside.path() + "/empty").isDir()); // and not followed
    QVERIFY(!exists(at(".idea")));
    QCOMPARE(sweep.kept.size(), 3u);
}

// .git replaced by a link to a directory outside that holds an empty "hooks": the record's .git/hooks is
// reached only through the link, so nothing there is removed.
void TestPlaceholderRecord::aLinkOnTheWayIsNotFollowed() {
    QVERIFY(crashedLaunch(Backend::Bwrap, ws(), defaultLikePlan()));
    QTemporaryDir outside;
    QVERIFY(QDir(outside.path()).mkdir("hooks"));
    QVERIFY(QDir(at(".git")).removeRecursively());
    QVERIFY(QFile::link(outside.path(), at(".git")));

    const PlaceholderSweep sweep = sweepPlaceholderRecords({Backend::Bwrap});
    QCOMPARE(sweep.records, 1u);
    QVERIFY(QFileInfo(outside.path() + "/hooks").isDir());
    QVERIFY(std::find(sweep.kept.begin(), sweep.kept.end(), ws() + "/.git/hooks") != sweep.kept.end());
}

void TestPlaceholderRecord::aLiveLauncherKeepsItsRecord() {
    auto record = PlaceholderRecord::write(Backend::Bwrap, ws(), defaultLikePlan());
    QVERIFY2(record.ok(), record.ok() ? "" : record.error().message.c_str());
    QVERIFY(createPlaceholders(ws(), defaultLikePlan()));

    const PlaceholderSweep sweep = sweepPlaceholderRecords({Backend::Bwrap});
    QCOMPARE(sweep.records, 0u); // locked: its sandbox may be running
    QVERIFY(QFile::exists(at(".envrc")));
    QCOMPARE(records().size(), 1);
    record->clear();
}

void TestPlaceholderRecord::anotherBackendsRecordIsLeftToItsSweep() {
    QVERIFY(crashedLaunch(Backend::Podman, ws(), defaultLikePlan()));
    QCOMPARE(sweepPlaceholderRecords({Backend::Bwrap}).records, 0u); // its container may outlive the launcher
    QVERIFY(QFile::exists(at(".envrc")));
    QCOMPARE(sweepPlaceholderRecords({Backend::Podman}).records, 1u);
    QVERIFY(!QFile::exists(at(".envrc")));
}

void TestPlaceholderRecord::aReplacedWorkspaceIsNotTouched() {
    QVERIFY(crashedLaunch(Backend::Bwrap, ws(), defaultLikePlan()));
    QVERIFY(QDir().rename(m_workspace, m_workspace + ".moved"));
    QVERIFY(QDir().mkdir(m_workspace)); // another directory of that name, with an empty .envrc of its own
    QFile envrc(at(".envrc"));
    QVERIFY(envrc.open(QIODevice::WriteOnly));
    envrc.close();

    const PlaceholderSweep sweep = sweepPlaceholderRecords({Backend::Bwrap});
    QCOMPARE(sweep.records, 1u);
    QVERIFY(sweep.removed.empty());
    QVERIFY(QFile::exists(at(".envrc")));
    QVERIFY(QDir(m_workspace + ".moved").removeRecursively());
}

void TestPlaceholderRecord::clearRemovesThePlaceholdersAndTheRecord() {
    auto record = PlaceholderRecord::write(Backend::Bwrap, ws(), defaultLikePlan());
    QVERIFY(record.ok());
    QVERIFY(createPlaceholders(ws(), defaultLikePlan()));
    QCOMPARE(records().size(), 1);
    record->clear();
    QVERIFY(records().isEmpty());
    QCOMPARE(QDir(m_workspace).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{".git"});
    QCOMPARE(QDir(at(".git")).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{"objects"});
}

void TestPlaceholderRecord::noPlaceholdersNoRecord() {
    auto record = PlaceholderRecord::write(Backend::Bwrap, ws(),
                                           ProtectionPlan{{{".git", ProtectionEntry::Kind::Pin}}});
    QVERIFY(record.ok());
    QVERIFY(record->path().empty());
    QVERIFY(records().isEmpty());
}

void TestPlaceholderRecord::recordedPlaceholdersNameThem() {
    QVERIFY(crashedLaunch(Backend::Bwrap, ws(), defaultLikePlan()));
    const auto paths = recordedPlaceholders(ws());
    QCOMPARE(paths.size(), 5u);
    QVERIFY(std::find(paths.begin(), paths.end(), ws() + "/.envrc") != paths.end());
    QVERIFY(recordedPlaceholders(ws() + "-other").empty());
}

// Anyone could have made it first (under /tmp) or may read and write what is in it: no record is written
// there, and the launch stops saying why.
void TestPlaceholderRecord::aDirectoryOthersMayEnterIsRefused() {
    const QString dir = m_records->path() + "/records";
    QVERIFY(QDir().mkdir(dir));
    QVERIFY(QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                           QFile::ReadOther | QFile::WriteOther | QFile::ExeOther));
    auto record = PlaceholderRecord::write(Backend::Bwrap, ws(), defaultLikePlan());
    QVERIFY(!record.ok());
    QVERIFY2(record.error().message.find("not a private directory") != std::string::npos,
             record.error().message.c_str());
    QVERIFY(records().isEmpty());
}

QTEST_GUILESS_MAIN(TestPlaceholderRecord)
#include "tst_placeholder_record.moc"
