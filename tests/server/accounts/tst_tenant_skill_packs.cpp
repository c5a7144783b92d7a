// A tenant's skill packs (server/accounts/TenantSkillPacks), on real folders: installed world-readable under
// tenant-skills/<tenant>/<skill>, an installed skill replaced whole, removed; and each attack performed and
// refused with nothing installed: a link to /etc/shadow or out of the pack, a skill folder that is a link, a
// hard link, an oversized file or skill, a tenant name that climbs out, a skill's name that does not fit.
#include "server/accounts/TenantSkillPacks.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren;
using namespace warren::accounts;

namespace {

bool writeFile(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

QByteArray skillText(const QString& name, const QByteArray& body = "Do it.\n") {
    return "---\nname: " + name.toUtf8() + "\ndescription: The " + name.toUtf8() + " skill\n---\n" + body;
}

bool writeSkill(const QString& pack, const QString& name, const QByteArray& body = "Do it.\n") {
    return writeFile(pack + "/" + name + "/SKILL.md", skillText(name, body));
}

QString readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

mode_t modeOf(const QString& path) {
    struct stat status {};
    return ::lstat(QFile::encodeName(path).constData(), &status) == 0 ? status.st_mode & 07777 : 0;
}

} // namespace

class TestTenantSkillPacks : public QObject {
    Q_OBJECT

private slots:
    void installsReplacesAndRemoves() {
        QTemporaryDir data, pack;
        QVERIFY(writeSkill(pack.path(), "release-notes", "Group the log.\n"));
        QVERIFY(writeFile(pack.filePath("release-notes/scripts/run.sh"), "#!/bin/sh\necho hi\n"));
        QVERIFY(
            QFile::setPermissions(pack.filePath("release-notes/scripts/run.sh"),
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QVERIFY(QFile::setPermissions(pack.filePath("release-notes/SKILL.md"),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QVERIFY(::symlink("scripts/run.sh",
                          QFile::encodeName(pack.filePath("release-notes/run")).constData()) == 0);
        QVERIFY(writeSkill(pack.path(), "triage"));
        QVERIFY(writeFile(pack.filePath("README.md"), "a pack\n")); // the pack's, not a skill
        QVERIFY(writeSkill(pack.filePath(".git"), "hidden"));       // hidden: passed over
        auto installed = installSkills(data.path().toStdString(), "acme", pack.path().toStdString());
        QVERIFY2(installed, installed ? "" : installed.error().message.c_str());
        QCOMPARE(installed->size(), std::size_t(2));
        QCOMPARE((*installed)[0].name, std::string("release-notes"));
        QVERIFY(!(*installed)[0].replaced);
        const QString dir = data.filePath("tenant-skills/acme");
        QVERIFY(readAll(dir + "/release-notes/SKILL.md").contains("Group the log."));
        QCOMPARE(QFileInfo(dir + "/release-notes/run").symLinkTarget(),
                 dir + "/release-notes/scripts/run.sh");
        QVERIFY(!QFileInfo::exists(dir + "/README.md") && !QFileInfo::exists(dir + "/.git"));
        // Readable by the sandbox's user, who owns none of it.
        QCOMPARE(modeOf(dir), mode_t(0755));
        QCOMPARE(modeOf(dir + "/release-notes"), mode_t(0755));
        QCOMPARE(modeOf(dir + "/release-notes/SKILL.md"), mode_t(0644));
        QCOMPARE(modeOf(dir + "/release-notes/scripts/run.sh"), mode_t(0755));

        // Installed again from a pack where the skill lost a file: the new one whole, nothing of the old.
        QTemporaryDir second;
        QVERIFY(writeSkill(second.path(), "release-notes", "Group the log by scope.\n"));
        installed = installSkills(data.path().toStdString(), "acme", second.path().toStdString());
        QVERIFY2(installed, installed ? "" : installed.error().message.c_str());
        QVERIFY(installed->size() == 1 && installed->front().replaced);
        QVERIFY(readAll(dir + "/release-notes/SKILL.md").contains("by scope"));
        QVERIFY(!QFileInfo::exists(dir + "/release-notes/scripts"));
        QVERIFY(QFileInfo::exists(dir + "/triage/SKILL.md"));
        // Nothing is left beside the tenants' folders.
        QCOMPARE(QDir(data.filePath("tenant-skills/.incoming"))
                     .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden),
                 QStringList());
        QCOMPARE(*installedSkills(data.path().toStdString(), "acme"),
                 (std::vector<std::string>{"release-notes", "triage"}));

        auto removed = removeSkill(data.path().toStdString(), "acme", "triage");
        QVERIFY(removed && *removed);
        QVERIFY(!QFileInfo::exists(dir + "/triage"));
        removed = removeSkill(data.path().toStdString(), "acme", "triage");
        QVERIFY(removed && !*removed);
        QVERIFY(!removeSkill(data.path().toStdString(), "acme", "../acme"));
        QVERIFY(!removeSkill(data.path().toStdString(), "../acme", "triage"));
    }

    void attacksAreRefusedAndInstallNothing_data() {
        QTest::addColumn<QString>("attack");
        QTest::addColumn<QString>("tenant");
        QTest::addColumn<QString>("message");
        QTest::newRow("a link to /etc/shadow") << "shadow"
                                               << "acme"
                                               << "\"shadow\" is a symbolic link with an absolute";
        QTest::newRow("a link out of the pack") << "outside"
                                                << "acme"
                                                << "\"secret\" is a symbolic link with an absolute";
        QTest::newRow("a link climbing out of the skill") << "climbing"
                                                          << "acme"
                                                          << "a symbolic link to outside the tree";
        QTest::newRow("a skill folder that is a link") << "linked-folder"
                                                       << "acme"
                                                       << "is a symbolic link";
        QTest::newRow("SKILL.md a link") << "linked-skill-file"
                                         << "acme"
                                         << "\"SKILL.md\" is a symbolic link";
        QTest::newRow("a hard link") << "hard-link"
                                     << "acme"
                                     << "is a hard link";
        QTest::newRow("an oversized file") << "big-file"
                                           << "acme"
                                           << "more than 4194304";
        QTest::newRow("an oversized skill") << "big-skill"
                                            << "acme"
                                            << "takes the skill past the 16777216 bytes";
        QTest::newRow("an oversized SKILL.md") << "big-skill-file"
                                               << "acme"
                                               << "SKILL.md has more than";
        QTest::newRow("a FIFO") << "fifo"
                                << "acme"
                                << "";
        QTest::newRow("a name with a dot") << "dotted-name"
                                           << "acme"
                                           << "is named as its SKILL.md names it";
        QTest::newRow("SKILL.md names another") << "other-name"
                                                << "acme"
                                                << "its SKILL.md names it \"other\"";
        QTest::newRow("no SKILL.md") << "no-skill-file"
                                     << "acme"
                                     << "no SKILL.md file";
        QTest::newRow("a bad SKILL.md") << "bad-skill-file"
                                        << "acme"
                                        << "SKILL.md:";
        QTest::newRow("a tenant climbing out") << "none"
                                               << "../x"
                                               << "is not a tenant name";
        QTest::newRow("a tenant with a slash") << "none"
                                               << "a/b"
                                               << "is not a tenant name";
        QTest::newRow("a hidden tenant") << "none"
                                         << ".acme"
                                         << "is not a tenant name";
        QTest::newRow("no skill at all") << "empty"
                                         << "acme"
                                         << "holds no skill folder";
    }

    void attacksAreRefusedAndInstallNothing() {
        QFETCH(QString, attack);
        QFETCH(QString, tenant);
        QFETCH(QString, message);
        QTemporaryDir data, pack, outside;
        const QString p = pack.path();
        if (attack != "empty")
            QVERIFY(writeSkill(p, "aaa-good")); // sorted first: copied before the bad one is met
        const auto link = [](const QString& target, const QString& at) {
            return ::symlink(QFile::encodeName(target).constData(), QFile::encodeName(at).constData()) == 0;
        };
        QVERIFY(writeFile(outside.filePath("secret.txt"), "outside-secret\n"));
        if (attack != "none" && attack != "empty" && attack != "linked-folder" && attack != "dotted-name" &&
            attack != "other-name" && attack != "no-skill-file" && attack != "bad-skill-file" &&
            attack != "linked-skill-file" && attack != "big-skill-file")
            QVERIFY(writeSkill(p, "zzz-bad"));
        if (attack == "shadow")
            QVERIFY(link("/etc/shadow", p + "/zzz-bad/shadow"));
        else if (attack == "outside")
            QVERIFY(link(outside.filePath("secret.txt"), p + "/zzz-bad/secret"));
        else if (attack == "climbing")
            QVERIFY(
                link("../../" + QFileInfo(outside.path()).fileName() + "/secret.txt", p + "/zzz-bad/secret"));
        else if (attack == "linked-folder") {
            QVERIFY(writeSkill(outside.path(), "zzz-bad"));
            QVERIFY(link(outside.filePath("zzz-bad"), p + "/zzz-bad"));
        } else if (attack == "linked-skill-file") {
            QVERIFY(QDir().mkpath(p + "/zzz-bad"));
            QVERIFY(writeFile(outside.filePath("SKILL.md"), skillText("zzz-bad")));
            QVERIFY(link(outside.filePath("SKILL.md"), p + "/zzz-bad/SKILL.md"));
        } else if (attack == "hard-link") {
            QVERIFY(::link(QFile::encodeName(outside.filePath("secret.txt")).constData(),
                           QFile::encodeName(p + "/zzz-bad/secret.txt").constData()) == 0);
        } else if (attack == "big-file") {
            QVERIFY(writeFile(p + "/zzz-bad/data.bin", QByteArray(int(kMaxSkillPackFileBytes) + 1, 'x')));
        } else if (attack == "big-skill") {
            for (int i = 0; i < 5; ++i)
                QVERIFY(
                    writeFile(p + "/zzz-bad/part" + QString::number(i), QByteArray(4 * 1024 * 1024, 'x')));
        } else if (attack == "big-skill-file") {
            QVERIFY(writeSkill(p, "zzz-bad", QByteArray(300 * 1024, 'x')));
        } else if (attack == "fifo") {
            QVERIFY(::mkfifo(QFile::encodeName(p + "/zzz-bad/pipe").constData(), 0600) == 0);
        } else if (attack == "dotted-name") {
            QVERIFY(writeFile(p + "/zzz.bad/SKILL.md", skillText("zzz.bad")));
        } else if (attack == "other-name") {
            QVERIFY(writeFile(p + "/zzz-bad/SKILL.md", skillText("other")));
        } else if (attack == "no-skill-file") {
            QVERIFY(writeFile(p + "/zzz-bad/notes.md", "no skill\n"));
        } else if (attack == "bad-skill-file") {
            QVERIFY(writeFile(p + "/zzz-bad/SKILL.md", "name: zzz-bad\n"));
        }
        auto installed = installSkills(data.path().toStdString(), tenant.toStdString(), p.toStdString());
        QVERIFY2(!installed, "installed");
        QVERIFY2(QString::fromStdString(installed.error().message).contains(message),
                 installed.error().message.c_str());
        // Nothing installed, not even the good skill beside it, and nothing left half-way.
        QDir tenants(data.filePath("tenant-skills"));
        for (const QString& entry : tenants.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden))
            QCOMPARE(QDir(tenants.filePath(entry))
                         .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden),
                     QStringList());
        QVERIFY(!QFileInfo::exists(QDir(data.path()).absoluteFilePath("x")));
    }
};

QTEST_GUILESS_MAIN(TestTenantSkillPacks)
#include "tst_tenant_skill_packs.moc"
