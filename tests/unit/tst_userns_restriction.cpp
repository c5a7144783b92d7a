// UsernsRestriction: Ubuntu's AppArmor restriction of user namespaces, decided row by row from what the
// kernel shows (the sysctl, this process's AppArmor label, the loaded profiles, the installed profile file,
// the program's path), then the edge on this machine.

#include "sandbox/bwrap/UsernsRestriction.h"

#include <QtTest>
#include <unistd.h>

using namespace warren::sandbox;
using CheckStatus = PreflightCheck::Status;

Q_DECLARE_METATYPE(CheckStatus)

namespace {

// What /sys/kernel/security/apparmor/profiles lists on Ubuntu 24.04, with and without Warren's profile.
const QString kUbuntuProfiles = "unprivileged_userns (enforce)\nflatpak (unconfined)\nchrome (unconfined)\n";
const QString kWithWarren = kUbuntuProfiles + "warren (unconfined)\n";
const QString kUnreadable = "<unreadable>"; // the file exists only for root

} // namespace

class TestUsernsRestriction : public QObject {
    Q_OBJECT

private slots:
    void check_data();
    void check();
    void thisMachine();
};

void TestUsernsRestriction::check_data() {
    QTest::addColumn<QString>("restrict");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("profiles");
    QTest::addColumn<bool>("installed");
    QTest::addColumn<QString>("program");
    QTest::addColumn<bool>("root");
    QTest::addColumn<bool>("setuidBwrap");
    QTest::addColumn<CheckStatus>("status");
    QTest::addColumn<QString>("mentioned"); // in the fix when not Ok, else in the detail

    const QString warren = "/usr/bin/warren";
    QTest::newRow("no sysctl (Debian, Fedora)")
        << ""
        << "" << kUnreadable << false << warren << false << false << CheckStatus::Ok << "has no";
    QTest::newRow("restriction off") << "0"
                                     << "unconfined" << kUbuntuProfiles << false << warren << false << false
                                     << CheckStatus::Ok << "is 0";
    QTest::newRow("restricted, root")
        << "1"
        << "unconfined" << kUbuntuProfiles << false << warren << true << false << CheckStatus::Ok << "root";
    QTest::newRow("restricted, setuid bwrap")
        << "1"
        << "unconfined" << kUnreadable << false << warren << false << true << CheckStatus::Ok << "setuid";
    QTest::newRow("restricted, under warren's profile")
        << "1"
        << "warren (unconfined)" << kUnreadable << true << warren << false << false << CheckStatus::Ok
        << "warren (unconfined)";
    QTest::newRow("restricted, warren-sandbox under the profile")
        << "1"
        << "warren (unconfined)" << kWithWarren << true << "/usr/bin/warren-sandbox" << false << false
        << CheckStatus::Ok << "inherits";
    QTest::newRow("restricted, not installed")
        << "1"
        << "unconfined" << kUnreadable << false << warren << false << false << CheckStatus::Warning
        << "sudo install -m 644 /usr/share/warren/apparmor/warren "
           "/etc/apparmor.d/warren && sudo apparmor_parser -r "
           "/etc/apparmor.d/warren";
    QTest::newRow("restricted, not installed, the sysctl named")
        << "1"
        << "unconfined" << kUnreadable << false << warren << false << false << CheckStatus::Warning
        << "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
    QTest::newRow("restricted, installed, not loaded (root reads the list)")
        << "1"
        << "unconfined" << kUbuntuProfiles << true << warren << false << false << CheckStatus::Warning
        << "sudo apparmor_parser -r /etc/apparmor.d/warren";
    QTest::newRow("restricted, installed, list unreadable")
        << "1"
        << "unconfined" << kUnreadable << true << "/usr/bin/warrend" << false << false << CheckStatus::Warning
        << "start /usr/bin/warrend again";
    QTest::newRow("restricted, loaded after this program started")
        << "1"
        << "unconfined" << kWithWarren << true << warren << false << false << CheckStatus::Warning
        << "Start /usr/bin/warren again";
    QTest::newRow("restricted, a build tree's warren")
        << "1"
        << "unconfined" << kWithWarren << true << "/home/me/warren/build/warren/warren" << false << false
        << CheckStatus::Warning << "Run the installed Warren";
    QTest::newRow("restricted, a build tree's warren, the sysctl named")
        << "1"
        << "unconfined" << kWithWarren << true << "/home/me/warren/build/warren/warren" << false << false
        << CheckStatus::Warning << "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
    QTest::newRow("restricted, another profile's label")
        << "1"
        << "flatpak (unconfined)" << kUnreadable << true << "/usr/local/bin/warren" << false << false
        << CheckStatus::Warning << "Run the installed Warren";
    QTest::newRow("restricted, a profile merely named warren-like")
        << "1"
        << "warrenx (enforce)" << kUnreadable << false << warren << false << false << CheckStatus::Warning
        << "not installed";
}

void TestUsernsRestriction::check() {
    QFETCH(QString, restrict);
    QFETCH(QString, label);
    QFETCH(QString, profiles);
    QFETCH(bool, installed);
    QFETCH(QString, program);
    QFETCH(bool, root);
    QFETCH(bool, setuidBwrap);
    QFETCH(CheckStatus, status);
    QFETCH(QString, mentioned);
    UsernsRestrictionInputs in;
    in.restrictSysctl = restrict.toStdString();
    in.ownLabel = label.toStdString();
    if (profiles != kUnreadable)
        in.loadedProfiles = profiles.toStdString();
    in.profileInstalled = installed;
    in.program = program.toStdString();
    in.runningAsRoot = root;
    in.bwrapSetuid = setuidBwrap;

    const PreflightCheck check = usernsRestrictionCheck(in);
    QCOMPARE(check.name, std::string("apparmor"));
    QCOMPARE(check.status, status);
    QVERIFY(!check.detail.empty());
    QCOMPARE(check.fix.empty(), status == CheckStatus::Ok);
    const QString where =
        QString::fromStdString(status == CheckStatus::Ok ? check.detail : check.fix + " " + check.detail);
    QVERIFY2(where.contains(mentioned), qPrintable(where));
}

// The edge on this machine: the inputs it reads agree with the files, and the program is this test.
void TestUsernsRestriction::thisMachine() {
    const auto in = readUsernsRestrictionInputs(::geteuid() == 0, false);
    QFile sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    if (sysctl.open(QIODevice::ReadOnly))
        QCOMPARE(QString::fromStdString(in.restrictSysctl), QString(sysctl.readAll()).trimmed());
    else
        QVERIFY(in.restrictSysctl.empty());
    QCOMPARE(QString::fromStdString(in.program), QCoreApplication::applicationFilePath());
    QCOMPARE(in.profileInstalled, QFile::exists(kAppArmorProfileFile));
    const PreflightCheck check = usernsRestrictionCheck(in);
    qInfo("%s: %s", check.name.c_str(), check.detail.c_str());
    if (in.restrictSysctl.empty() || in.restrictSysctl == "0")
        QCOMPARE(check.status, CheckStatus::Ok);
}

QTEST_GUILESS_MAIN(TestUsernsRestriction)
#include "tst_userns_restriction.moc"
