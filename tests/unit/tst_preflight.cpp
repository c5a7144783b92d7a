// Preflight: the pure interpretations (bwrap's version line, the user-namespace sysctls, seccomp, what
// stands in for missing cgroups) row by row, then real runs: this machine passes, and a missing or too
// old bwrap fails with a fix that names the problem.

#include "sandbox/Preflight.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren::sandbox;
using CheckStatus = PreflightCheck::Status;

Q_DECLARE_METATYPE(CheckStatus)

namespace {

QString text(const std::string& value) {
    return QString::fromStdString(value);
}

// An executable shell script standing in for bwrap.
QString writeScript(const QTemporaryDir& dir, const QString& name, const QByteArray& body) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                        QFileDevice::ReadGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther |
                        QFileDevice::ExeOther);
    return path;
}

// A bwrap that reports `version` and fails every real run with `error` on stderr.
QByteArray fakeBwrap(const QByteArray& version, const QByteArray& error = "bwrap: fake") {
    return "if [ \"$1\" = --version ]; then echo '" + version + "'; exit 0; fi\necho '" + error +
           "' >&2\nexit 1\n";
}

} // namespace

class TestPreflight : public QObject {
    Q_OBJECT

private slots:
    void parseBwrapVersion_data();
    void parseBwrapVersion();
    void userNamespaceCheck_data();
    void userNamespaceCheck();
    void seccompCheck_data();
    void seccompCheck();
    void cgroupCheck_data();
    void cgroupCheck();
    void describeShowsStatusAndFix();

    void thisMachinePasses();
    void missingBwrapFails();
    void oldBwrapFails();
    void bwrapWithoutVersionFails();
    void failedTrialReportsBwrapsMessage();
    void setuidBwrapIsNamed();
};

void TestPreflight::parseBwrapVersion_data() {
    QTest::addColumn<QString>("output");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("major");
    QTest::addColumn<int>("minor");
    QTest::addColumn<int>("patch");

    QTest::newRow("debian 12") << "bubblewrap 0.8.0\n" << true << 0 << 8 << 0;
    QTest::newRow("two-digit minor") << "bubblewrap 0.11.0\n" << true << 0 << 11 << 0;
    QTest::newRow("old") << "bubblewrap 0.4.0\n" << true << 0 << 4 << 0;
    QTest::newRow("release candidate") << "bubblewrap 0.10.0-rc1\n" << true << 0 << 10 << 0;
    QTest::newRow("git build") << "bubblewrap 0.9.0+git20240101\n" << true << 0 << 9 << 0;
    QTest::newRow("no patch number") << "bubblewrap 1.0\n" << true << 1 << 0 << 0;
    QTest::newRow("four parts") << "bubblewrap 0.8.0.1\n" << true << 0 << 8 << 0;
    QTest::newRow("surrounding blanks") << "  bubblewrap 0.8.1  \r\n" << true << 0 << 8 << 1;
    QTest::newRow("more lines after") << "bubblewrap 0.8.0\nsomething else\n" << true << 0 << 8 << 0;
    QTest::newRow("no newline") << "bubblewrap 0.8.0" << true << 0 << 8 << 0;
    QTest::newRow("empty") << "" << false << 0 << 0 << 0;
    QTest::newRow("name only") << "bubblewrap\n" << false << 0 << 0 << 0;
    QTest::newRow("name and space") << "bubblewrap \n" << false << 0 << 0 << 0;
    QTest::newRow("major only") << "bubblewrap 0\n" << false << 0 << 0 << 0;
    QTest::newRow("letters") << "bubblewrap x.y.z\n" << false << 0 << 0 << 0;
    QTest::newRow("letters glued to number") << "bubblewrap 0.8x\n" << false << 0 << 0 << 0;
    QTest::newRow("negative") << "bubblewrap -1.8.0\n" << false << 0 << 0 << 0;
    QTest::newRow("overflow") << "bubblewrap 99999999999.0.0\n" << false << 0 << 0 << 0;
    QTest::newRow("other program") << "bwrap 0.8.0\n" << false << 0 << 0 << 0;
    QTest::newRow("usage text") << "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n"
                                << false << 0 << 0 << 0;
    QTest::newRow("version on second line") << "\nbubblewrap 0.8.0\n" << false << 0 << 0 << 0;
}

void TestPreflight::parseBwrapVersion() {
    QFETCH(QString, output);
    QFETCH(bool, valid);
    BwrapVersion version{7, 7, 7};
    QCOMPARE(warren::sandbox::parseBwrapVersion(output.toStdString(), version), valid);
    if (!valid) {
        QCOMPARE(version, (BwrapVersion{7, 7, 7})); // untouched on failure
        return;
    }
    QTEST(version.major, "major");
    QTEST(version.minor, "minor");
    QTEST(version.patch, "patch");
}

void TestPreflight::userNamespaceCheck_data() {
    QTest::addColumn<QString>("maxUserNamespaces");
    QTest::addColumn<QString>("unprivilegedClone");
    QTest::addColumn<bool>("root");
    QTest::addColumn<bool>("setuidBwrap");
    QTest::addColumn<CheckStatus>("status");
    QTest::addColumn<QString>("mentioned"); // in the fix when not Ok, else in the detail

    QTest::newRow("allowed, user") << "15000"
                                   << "" << false << false << CheckStatus::Ok << "15000";
    QTest::newRow("allowed, root") << "15000"
                                   << "" << true << false << CheckStatus::Ok << "root";
    QTest::newRow("files absent") << ""
                                  << "" << false << false << CheckStatus::Ok << "unknown";
    QTest::newRow("max zero blocks user")
        << "0"
        << "" << false << false << CheckStatus::Failed << "user.max_user_namespaces=";
    QTest::newRow("max zero blocks root")
        << "0"
        << "" << true << false << CheckStatus::Failed << "user.max_user_namespaces=";
    QTest::newRow("max zero blocks setuid bwrap")
        << "0"
        << "" << false << true << CheckStatus::Failed << "user.max_user_namespaces=";
    QTest::newRow("debian switch off blocks user")
        << "15000"
        << "0" << false << false << CheckStatus::Failed << "kernel.unprivileged_userns_clone=1";
    QTest::newRow("debian switch off, root") << "15000"
                                             << "0" << true << false << CheckStatus::Ok << "root";
    QTest::newRow("debian switch off, setuid bwrap") << "15000"
                                                     << "0" << false << true << CheckStatus::Ok << "setuid";
    QTest::newRow("debian switch on") << "15000"
                                      << "1" << false << false << CheckStatus::Ok << "15000";
}

void TestPreflight::userNamespaceCheck() {
    QFETCH(QString, maxUserNamespaces);
    QFETCH(QString, unprivilegedClone);
    QFETCH(bool, root);
    QFETCH(bool, setuidBwrap);
    QFETCH(CheckStatus, status);
    QFETCH(QString, mentioned);
    const PreflightCheck check = warren::sandbox::userNamespaceCheck(
        maxUserNamespaces.toStdString(), unprivilegedClone.toStdString(), root, setuidBwrap);
    QCOMPARE(check.name, std::string("user namespaces"));
    QCOMPARE(check.status, status);
    QVERIFY(!check.detail.empty());
    const QString where = text(status == CheckStatus::Ok ? check.detail : check.fix);
    QVERIFY2(where.contains(mentioned), qPrintable(where));
    QCOMPARE(check.fix.empty(), status == CheckStatus::Ok);
}

void TestPreflight::seccompCheck_data() {
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("actions");
    QTest::addColumn<CheckStatus>("expected");
    QTest::addColumn<QString>("mentioned"); // in the detail

    const QString allActions = "kill_process kill_thread trap errno user_notif trace log allow";
    QTest::newRow("supported") << "Name:\tx\nSeccomp:\t0\nSeccomp_filters:\t0\n"
                               << allActions << CheckStatus::Ok << "supported";
    QTest::newRow("already filtered") << "Seccomp:\t2\nSeccomp_filters:\t1\n"
                                      << allActions << CheckStatus::Ok << "already";
    QTest::newRow("kernel without seccomp") << "Name:\tx\nState:\tR\n"
                                            << "" << CheckStatus::Failed << "no seccomp";
    QTest::newRow("only the filters count") << "Seccomp_filters:\t0\n"
                                            << allActions << CheckStatus::Failed << "no seccomp";
    QTest::newRow("no actions_avail") << "Seccomp:\t0\n"
                                      << "" << CheckStatus::Failed << "4.14";
    QTest::newRow("no kill_process") << "Seccomp:\t0\n"
                                     << "kill_thread trap errno trace allow" << CheckStatus::Failed
                                     << "kill_process";
    QTest::newRow("no errno") << "Seccomp:\t0\n"
                              << "kill_process kill_thread allow" << CheckStatus::Failed << "errno";
}

void TestPreflight::seccompCheck() {
    QFETCH(QString, status);
    QFETCH(QString, actions);
    QFETCH(CheckStatus, expected);
    QFETCH(QString, mentioned);
    const PreflightCheck check = warren::sandbox::seccompCheck(status.toStdString(), actions.toStdString());
    QCOMPARE(check.status, expected);
    QVERIFY2(text(check.detail).contains(mentioned), check.detail.c_str());
    QCOMPARE(check.fix.empty(), expected == CheckStatus::Ok);
}

void TestPreflight::cgroupCheck_data() {
    QTest::addColumn<bool>("memory");
    QTest::addColumn<bool>("pids");
    QTest::addColumn<bool>("kill");
    QTest::addColumn<CheckStatus>("expected");
    QTest::addColumn<QStringList>("mentioned");
    QTest::addColumn<QStringList>("notMentioned");

    QTest::newRow("everything") << true << true << true << CheckStatus::Ok << QStringList{"probe detail"}
                                << QStringList{"RLIMIT"};
    QTest::newRow("nothing") << false << false << false << CheckStatus::Warning
                             << QStringList{"probe detail", "RLIMIT_AS", "RLIMIT_NPROC", "PID namespace"}
                             << QStringList{};
    QTest::newRow("no memory") << false << true << true << CheckStatus::Warning << QStringList{"RLIMIT_AS"}
                               << QStringList{"RLIMIT_NPROC", "PID namespace"};
    QTest::newRow("no pids") << true << false << true << CheckStatus::Warning
                             << QStringList{"RLIMIT_NPROC", "root"}
                             << QStringList{"RLIMIT_AS", "PID namespace"};
    QTest::newRow("kill only") << false << false << true << CheckStatus::Warning
                               << QStringList{"RLIMIT_AS", "RLIMIT_NPROC"} << QStringList{"PID namespace"};
}

void TestPreflight::cgroupCheck() {
    QFETCH(bool, memory);
    QFETCH(bool, pids);
    QFETCH(bool, kill);
    QFETCH(CheckStatus, expected);
    QFETCH(QStringList, mentioned);
    QFETCH(QStringList, notMentioned);
    CgroupSupport support;
    support.memory = memory;
    support.pids = pids;
    support.kill = kill;
    support.detail = "probe detail";
    const PreflightCheck check = warren::sandbox::cgroupCheck(support);
    QCOMPARE(check.status, expected); // never Failed: rlimits stand in
    for (const auto& word : mentioned)
        QVERIFY2(text(check.detail).contains(word), qPrintable(word + " not in: " + text(check.detail)));
    for (const auto& word : notMentioned)
        QVERIFY2(!text(check.detail).contains(word), qPrintable(word + " in: " + text(check.detail)));
    QCOMPARE(check.fix.empty(), expected == CheckStatus::Ok);
}

void TestPreflight::describeShowsStatusAndFix() {
    PreflightReport report;
    report.checks = {{"alpha", CheckStatus::Ok, "fine", ""},
                     {"beta", CheckStatus::Warning, "so-so", "do beta"},
                     {"gamma", CheckStatus::Failed, "broken", "do gamma"}};
    QCOMPARE(text(report.describe()), QStringLiteral("ok      alpha: fine\n"
                                                     "warning beta: so-so\n"
                                                     "        fix: do beta\n"
                                                     "FAILED  gamma: broken\n"
                                                     "        fix: do gamma\n"));
    QVERIFY(!report.ok());
    QVERIFY(report.find("beta") && report.find("beta")->detail == "so-so");
    QVERIFY(!report.find("delta"));
    report.checks.pop_back();
    QVERIFY(report.ok()); // a warning does not stop a launch
}

void TestPreflight::thisMachinePasses() {
    const PreflightReport report = runPreflight();
    qInfo("%s", report.describe().c_str());
    QVERIFY2(report.ok(), report.describe().c_str());
    QVERIFY(!report.bwrapPath.empty());
    QVERIFY(report.bwrapVersion >= kMinimumBwrap);
    for (const char* name : {"bwrap", "user namespaces", "apparmor", "sandbox trial", "seccomp"}) {
        const PreflightCheck* check = report.find(name);
        QVERIFY2(check && check->status == CheckStatus::Ok, name);
    }
    const PreflightCheck* cgroups = report.find("cgroups");
    QVERIFY(cgroups);
    QCOMPARE(cgroups->status == CheckStatus::Ok,
             report.cgroups.memory && report.cgroups.pids && report.cgroups.kill);
}

void TestPreflight::missingBwrapFails() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath("no-such-bwrap").toStdString();
    const PreflightReport report = runPreflight(missing);
    QVERIFY(!report.ok());
    const PreflightCheck* bwrap = report.find("bwrap");
    QVERIFY(bwrap);
    QCOMPARE(bwrap->status, CheckStatus::Failed);
    QVERIFY2(text(bwrap->detail).contains(text(missing)), bwrap->detail.c_str());
    QVERIFY2(text(bwrap->detail).contains("No such file or directory"), bwrap->detail.c_str());
    QVERIFY2(text(bwrap->fix).contains("apt-get install bubblewrap"), bwrap->fix.c_str());
    QVERIFY(report.bwrapPath.empty());
    QVERIFY(!report.find("sandbox trial")); // nothing to try with
    QVERIFY(text(report.describe()).contains("FAILED  bwrap"));
}

void TestPreflight::oldBwrapFails() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fake = writeScript(dir, "bwrap", fakeBwrap("bubblewrap 0.4.0"));
    const PreflightReport report = runPreflight(fake.toStdString());
    QVERIFY(!report.ok());
    QCOMPARE(report.bwrapVersion, (BwrapVersion{0, 4, 0}));
    const PreflightCheck* bwrap = report.find("bwrap");
    QVERIFY(bwrap);
    QCOMPARE(bwrap->status, CheckStatus::Failed);
    QVERIFY2(text(bwrap->detail).contains("0.4.0"), bwrap->detail.c_str());
    QVERIFY2(text(bwrap->detail).contains("--disable-userns"), bwrap->detail.c_str());
    QVERIFY2(text(bwrap->fix).contains("Upgrade bubblewrap to 0.8.0"), bwrap->fix.c_str());
    QVERIFY(!report.find("sandbox trial"));
}

void TestPreflight::bwrapWithoutVersionFails() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fake = writeScript(dir, "bwrap", "echo 'Segmentation fault' >&2\nexit 139\n");
    const PreflightReport report = runPreflight(fake.toStdString());
    const PreflightCheck* bwrap = report.find("bwrap");
    QVERIFY(bwrap);
    QCOMPARE(bwrap->status, CheckStatus::Failed);
    QVERIFY2(text(bwrap->detail).contains("exited with status 139: Segmentation fault"),
             bwrap->detail.c_str());
    QVERIFY2(text(bwrap->fix).contains("Reinstall bubblewrap"), bwrap->fix.c_str());
}

void TestPreflight::failedTrialReportsBwrapsMessage() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fake = writeScript(
        dir, "bwrap", fakeBwrap("bubblewrap 0.9.0", "bwrap: No permissions to create new namespace"));
    const PreflightReport report = runPreflight(fake.toStdString());
    QVERIFY(!report.ok());
    QCOMPARE(report.find("bwrap")->status, CheckStatus::Ok);
    const PreflightCheck* trial = report.find("sandbox trial");
    QVERIFY(trial);
    QCOMPARE(trial->status, CheckStatus::Failed);
    QVERIFY2(text(trial->detail).contains("--unshare-user"), trial->detail.c_str());
    QVERIFY2(
        text(trial->detail).contains("exited with status 1: bwrap: No permissions to create new namespace"),
        trial->detail.c_str());
    QVERIFY(!trial->fix.empty());
}

void TestPreflight::setuidBwrapIsNamed() {
    if (::geteuid() != 0)
        QSKIP("only root can make a setuid-root file to stand in for a setuid bwrap");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fake = writeScript(dir, "bwrap", fakeBwrap("bubblewrap 0.9.0"));
    QVERIFY(::chmod(QFile::encodeName(fake).constData(), 04755) == 0);
    const PreflightReport report = runPreflight(fake.toStdString());
    QVERIFY(report.bwrapSetuid);
    const PreflightCheck* bwrap = report.find("bwrap");
    QVERIFY(bwrap);
    QCOMPARE(bwrap->status, CheckStatus::Ok);
    QVERIFY2(text(bwrap->detail).contains("setuid root"), bwrap->detail.c_str());
}

QTEST_APPLESS_MAIN(TestPreflight)
#include "tst_preflight.moc"
