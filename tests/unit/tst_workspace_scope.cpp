// tooBroadWorkspace: the folders an agent is never given as its workspace (the machine, system folders, the
// home and what holds it, a home's credential folders), and the projects it is.
#include "app/tasks/WorkspaceScope.h"

#include <QtTest>

using namespace warren::control;

class TestWorkspaceScope : public QObject {
    Q_OBJECT

private slots:
    void refusesTooBroadFolders_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("why");
        QTest::newRow("the machine") << "/" << "the whole machine";
        QTest::newRow("the home") << "/home/ada" << "is your home folder";
        QTest::newRow("what holds the home") << "/home" << "holds your home folder";
        QTest::newRow("etc") << "/etc" << "system folder";
        QTest::newRow("usr") << "/usr" << "system folder";
        QTest::newRow("tmp itself") << "/tmp" << "system folder";
        QTest::newRow("another's home root") << "/root" << "system folder";
        QTest::newRow("ssh keys") << "/home/ada/.ssh" << "~/.ssh";
        QTest::newRow("inside aws") << "/home/ada/.aws/sso" << "~/.aws";
        QTest::newRow("config") << "/home/ada/.config" << "~/.config";
        QTest::newRow("keyrings") << "/home/ada/.local/share/keyrings" << "~/.local/share/keyrings";
    }

    void refusesTooBroadFolders() {
        QFETCH(QString, path);
        QFETCH(QString, why);
        const auto broad = tooBroadWorkspace(path.toStdString(), "/home/ada");
        QVERIFY(broad);
        QVERIFY2(QString::fromStdString(*broad).contains(why), broad->c_str());
        QVERIFY2(QString::fromStdString(*broad).contains("--workspace DIR"), broad->c_str()); // what to do
    }

    void acceptsProjects_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("a project in the home") << "/home/ada/src/app";
        QTest::newRow("a folder beside") << "/home/adam";
        QTest::newRow("a dotted project") << "/home/ada/.dotfiles";
        QTest::newRow("in tmp") << "/tmp/scratch";
        QTest::newRow("under srv") << "/srv/git/app";
        QTest::newRow("under var") << "/var/lib/warrend/tasks/t1/workspace";
        QTest::newRow("warren's own data (the demo's copy)") << "/home/ada/.local/share/warren/tasks/t1/workspace";
    }

    void acceptsProjects() {
        QFETCH(QString, path);
        const auto broad = tooBroadWorkspace(path.toStdString(), "/home/ada");
        QVERIFY2(!broad, broad ? broad->c_str() : "");
    }

    void rootsHomeIsItsOwn() {
        QVERIFY(tooBroadWorkspace("/root", "/root")); // the home, as root
        QVERIFY(!tooBroadWorkspace("/root/project", "/root"));
        QVERIFY(tooBroadWorkspace("/root/.ssh", "/root"));
    }
};

QTEST_APPLESS_MAIN(TestWorkspaceScope)
#include "tst_workspace_scope.moc"
