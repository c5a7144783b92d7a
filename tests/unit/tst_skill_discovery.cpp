// Skills found in a real tree (SkillDiscovery, SkillLibrary): the workspace's .warren/skills, .claude/skills
// and .agents/skills then the skills_dirs folders, in that order of precedence; a bad SKILL.md, one over the
// size cap, one that is not a regular file, a name taken by an earlier root, a symlinked folder or SKILL.md
// leading out of its root and a root leading out of the workspace are each skipped with a message while the
// others load; at most 200 skills; the fingerprint changes with the SKILL.md files and nothing else; a run's
// library reports what it offers, what changed and each skill skipped once.

#include "agent_core/skills/SkillDiscovery.h"
#include "agent_core/skills/SkillFile.h"
#include "agent_core/skills/SkillLibrary.h"

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string skillMd(const std::string& name, const std::string& description,
                    const std::string& body = "Do it.\n") {
    return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
}

void writeSkill(const fs::path& folder, const std::string& name,
                const std::string& description = "A skill.") {
    write(folder / "SKILL.md", skillMd(name, description));
}

QStringList namesOf(const std::vector<Skill>& skills) {
    QStringList out;
    for (const auto& skill : skills)
        out << QString::fromStdString(skill.name);
    return out;
}

QString joined(const std::vector<std::string>& messages) {
    QStringList out;
    for (const auto& message : messages)
        out << QString::fromStdString(message);
    return out.join("\n");
}

QStringList noticesOf(SkillLibrary& library, SkillNotice::Kind kind) {
    QStringList out;
    for (const auto& notice : library.takeNotices())
        if (notice.kind == kind)
            out << QString::fromStdString(notice.message);
    return out;
}

} // namespace

class TestSkillDiscovery : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path m_root;      // <tmp>
    fs::path m_workspace; // <tmp>/ws
    fs::path m_user;      // <tmp>/user-skills, a skills_dirs folder

    std::vector<SkillRoot> roots() const {
        return skillRoots(m_workspace, {m_user.string(), (m_root / "nowhere").string()});
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_root = fs::canonical(m_dir.path().toStdString());
        m_workspace = m_root / "ws";
        m_user = m_root / "user-skills";
        const fs::path warren = m_workspace / ".warren/skills";
        const fs::path claude = m_workspace / ".claude/skills";
        const fs::path agents = m_workspace / ".agents/skills";
        const fs::path outside = m_root / "outside";

        writeSkill(warren / "deploy", "deploy", "Deploy to staging.");
        writeSkill(claude / "pdf", "pdf", "Extract text from PDFs.");
        writeSkill(claude / "deploy", "deploy", "Another deploy.");
        write(claude / "bad/SKILL.md", "# no front matter\n");
        write(claude / "notes.txt", "not a skill\n");
        fs::create_directories(claude / "empty-folder");
        writeSkill(claude / "renamed-folder", "other-name", "Named by its front matter.");
        write(claude / "big/SKILL.md", skillMd("big", "Too big.", std::string(kMaxSkillFileBytes, 'x')));
        fs::create_directories(claude / "fifo");
        QCOMPARE(::mkfifo((claude / "fifo/SKILL.md").c_str(), 0600), 0);
        writeSkill(outside / "skill", "escaped", "Read through a symlink.");
        fs::create_directory_symlink(outside / "skill", claude / "escape");
        fs::create_directories(claude / "linkfile");
        fs::create_symlink(outside / "skill/SKILL.md", claude / "linkfile/SKILL.md");
        writeSkill(agents / ".real", "linked-skill", "Reached through a symlink inside its root.");
        fs::create_directory_symlink(".real", agents / "linked");

        writeSkill(m_user / "pdf", "pdf", "The user's pdf, shadowed by the workspace's.");
        writeSkill(m_user / "review", "review", "Review a change.");
    }

    void skillsAreFoundInTheRootsOrder() {
        const auto scan = scanSkills(roots());
        QCOMPARE(namesOf(scan.skills),
                 (QStringList{"deploy", "pdf", "other-name", "linked-skill", "review"}));
        const Skill& deploy = scan.skills[0];
        QCOMPARE(deploy.description, std::string("Deploy to staging."));
        QCOMPARE(deploy.shown, std::string(".warren/skills/deploy/SKILL.md"));
        QCOMPARE(deploy.folder, m_workspace / ".warren/skills/deploy");
        QCOMPARE(deploy.file, m_workspace / ".warren/skills/deploy/SKILL.md");
        QCOMPARE(scan.skills[2].folder, m_workspace / ".claude/skills/renamed-folder");
        QCOMPARE(scan.skills[3].folder, m_workspace / ".agents/skills/.real");
        QCOMPARE(scan.skills[4].shown, (m_user / "review/SKILL.md").string());
        QVERIFY(scan.skills[4].size > 0 && scan.skills[4].modifiedNs > 0);
    }

    void whatCannotBeReadIsSkippedWithWhy_data() {
        QTest::addColumn<QString>("message");
        QTest::newRow("a name an earlier root has")
            << "skill .claude/skills/deploy/SKILL.md skipped: the name \"deploy\" is already "
               ".warren/skills/deploy/SKILL.md's";
        QTest::newRow("no front matter") << "skill .claude/skills/bad/SKILL.md skipped: no front matter";
        QTest::newRow("over the size cap")
            << "skill .claude/skills/big/SKILL.md skipped: larger than 256 KiB (";
        QTest::newRow("not a regular file")
            << "skill .claude/skills/fifo/SKILL.md skipped: it is not a regular file";
        QTest::newRow("a folder symlinked out of its root")
            << "skill .claude/skills/escape/SKILL.md skipped: .claude/skills/escape is a symlink that leads "
               "out of "
               ".claude/skills: not followed";
        QTest::newRow("a SKILL.md symlinked out of its root")
            << "skill .claude/skills/linkfile/SKILL.md skipped: it is a symlink that leads out of "
               ".claude/skills: "
               "not followed";
        QTest::newRow("the user's, shadowed") << "/pdf/SKILL.md skipped: the name \"pdf\" is already "
                                                 ".claude/skills/pdf/SKILL.md's";
        QTest::newRow("a skills_dirs folder that is not there") << "/nowhere are not read: it does not exist";
    }

    void whatCannotBeReadIsSkippedWithWhy() {
        QFETCH(QString, message);
        const auto scan = scanSkills(roots());
        QVERIFY2(joined(scan.skipped).contains(message), qPrintable(joined(scan.skipped)));
        QCOMPARE(scan.skipped.size(), std::size_t(8));
    }

    void aRootLeadingOutOfTheWorkspaceIsNotRead() {
        const fs::path workspace = m_root / "ws-escape";
        writeSkill(m_root / "elsewhere/skills/secret", "secret", "Outside the workspace.");
        fs::create_directories(workspace);
        fs::create_directory_symlink(m_root / "elsewhere", workspace / ".claude");
        const auto scan = scanSkills(skillRoots(workspace, {}));
        QVERIFY(scan.skills.empty());
        QVERIFY2(joined(scan.skipped)
                     .contains("skills in .claude/skills are not read: path \".claude/skills\" is "
                               "outside the workspace"),
                 qPrintable(joined(scan.skipped)));
    }

    void atMost200Skills() {
        const fs::path many = m_root / "many";
        for (int i = 0; i < 205; ++i)
            writeSkill(many / QString::asprintf("s%03d", i).toStdString(),
                       QString::asprintf("s%03d", i).toStdString());
        fs::create_directories(m_root / "ws-none");
        const auto scan = scanSkills(skillRoots(m_root / "ws-none", {many.string()}));
        QCOMPARE(scan.skills.size(), kMaxSkills);
        QCOMPARE(scan.skills.back().name, std::string("s199"));
        QVERIFY2(joined(scan.skipped)
                     .contains("5 skills past the first 200 are not read: " +
                               QString::fromStdString(many.string()) + "/s200/SKILL.md"),
                 qPrintable(joined(scan.skipped)));
    }

    void fingerprintFollowsTheSkillFiles() {
        const fs::path workspace = m_root / "ws-print";
        writeSkill(workspace / ".claude/skills/one", "one");
        const auto rootsHere = skillRoots(workspace, {});
        const auto first = skillsFingerprint(rootsHere);
        QCOMPARE(skillsFingerprint(rootsHere), first);
        write(workspace / ".claude/skills/one/reference.md", "another file of the skill\n");
        QCOMPARE(skillsFingerprint(rootsHere), first);
        write(workspace / ".claude/skills/one/SKILL.md", skillMd("one", "A longer description than before."));
        const auto changed = skillsFingerprint(rootsHere);
        QVERIFY(changed != first);
        writeSkill(workspace / ".agents/skills/two", "two");
        QVERIFY(skillsFingerprint(rootsHere) != changed);
    }

    void libraryReportsWhatItOffersAndWhatChanged() {
        const fs::path workspace = m_root / "ws-library";
        const fs::path skills = workspace / ".claude/skills";
        writeSkill(skills / "alpha", "alpha");
        writeSkill(skills / "beta", "beta");
        SkillLibrary library(skillRoots(workspace, {}));
        QVERIFY(library.refresh());
        QCOMPARE(noticesOf(library, SkillNotice::Kind::Info), QStringList{"skills offered: alpha, beta"});
        QVERIFY(!library.refresh());
        QVERIFY(library.takeNotices().empty());

        writeSkill(skills / "alpha", "alpha", "Changed, and longer than before.");
        QVERIFY(library.refresh());
        QCOMPARE(noticesOf(library, SkillNotice::Kind::Info), QStringList{"skills changed: changed alpha"});
        QCOMPARE(library.find("alpha")->description, std::string("Changed, and longer than before."));

        writeSkill(skills / "gamma", "gamma");
        fs::remove_all(skills / "beta");
        QVERIFY(library.refresh());
        QCOMPARE(noticesOf(library, SkillNotice::Kind::Info),
                 QStringList{"skills changed: added gamma; removed beta"});
        QCOMPARE(library.names(), (std::vector<std::string>{"alpha", "gamma"}));
        QVERIFY(!library.find("beta"));

        // A bad skill: the set is the same, the warning comes once.
        write(skills / "broken/SKILL.md", "---\nname: broken\n");
        QVERIFY(!library.refresh());
        const auto skipped = noticesOf(library, SkillNotice::Kind::Skipped);
        QCOMPARE(skipped.size(), 1);
        QVERIFY2(skipped[0].contains(
                     "skill .claude/skills/broken/SKILL.md skipped: the front matter is not closed"),
                 qPrintable(skipped[0]));
        writeSkill(skills / "delta", "delta");
        QVERIFY(library.refresh());
        const auto again = library.takeNotices();
        QCOMPARE(again.size(), std::size_t(1));
        QCOMPARE(again[0].message, std::string("skills changed: added delta"));
    }

    void aLibraryWithoutSkillsSaysNothing() {
        fs::create_directories(m_root / "ws-empty");
        SkillLibrary library(skillRoots(m_root / "ws-empty", {}));
        QVERIFY(!library.refresh());
        QVERIFY(library.takeNotices().empty());
        QVERIFY(library.skills().empty());
    }

    void changesAreDescribed_data() {
        QTest::addColumn<QStringList>("before");
        QTest::addColumn<QStringList>("after");
        QTest::addColumn<QString>("described");
        QTest::newRow("same") << QStringList{"a", "b"} << QStringList{"a", "b"} << "";
        QTest::newRow("added") << QStringList{"a"} << QStringList{"a", "b", "c"} << "added b, c";
        QTest::newRow("removed") << QStringList{"a", "b"} << QStringList{} << "removed a, b";
        QTest::newRow("changed") << QStringList{"a", "b"} << QStringList{"a", "b*"} << "changed b";
        QTest::newRow("all three") << QStringList{"a", "b"} << QStringList{"a*", "c"}
                                   << "added c; changed a; removed b";
    }

    void changesAreDescribed() {
        QFETCH(QStringList, before);
        QFETCH(QStringList, after);
        QFETCH(QString, described);
        // "b*": b with another description.
        auto skills = [](const QStringList& names) {
            std::vector<Skill> out;
            for (QString name : names) {
                Skill skill;
                skill.description = name.endsWith('*') ? "changed" : "same";
                skill.name = name.remove('*').toStdString();
                out.push_back(skill);
            }
            return out;
        };
        const auto changes = skillChanges(skills(before), skills(after));
        const bool none = changes.added.empty() && changes.updated.empty() && changes.removed.empty();
        QCOMPARE(none ? QString() : QString::fromStdString(warren::protocol::skillsNoticeMessage(changes)),
                 described.isEmpty() ? QString() : "skills changed: " + described);
    }
};

QTEST_APPLESS_MAIN(TestSkillDiscovery)
#include "tst_skill_discovery.moc"
