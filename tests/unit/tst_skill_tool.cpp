// The skill tool over a real skill folder (SkillTool, SkillFolder): without file, the SKILL.md's body (no
// front matter), where the folder is and its files (hidden ones, SKILL.md and links that lead out left out);
// with file, that file; a path that is absolute, has "..", leads out through a symlink, is missing, a
// directory or binary is refused with why; an unknown skill names the ones there are; the output capped with
// the cut marked and the whole file's path.

#include "agent_core/skills/SkillFolder.h"
#include "agent_core/skills/SkillTool.h"

#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

class TestSkillTool : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path m_workspace;
    fs::path m_folder; // the pdf skill's
    std::unique_ptr<SkillLibrary> m_library;
    Cancellation m_cancellation;

    ToolOutcome call(const json& arguments, std::size_t limit = 16 * 1024) {
        ToolEnv env;
        env.workspace = m_workspace;
        env.outputLimitBytes = limit;
        env.cancellation = &m_cancellation;
        SkillTool tool(m_library.get());
        return tool.run(arguments, env);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const fs::path root = fs::canonical(m_dir.path().toStdString());
        m_workspace = root / "ws";
        m_folder = m_workspace / ".claude/skills/pdf";
        write(m_folder / "SKILL.md",
              "---\nname: pdf\ndescription: Extract text from PDFs.\nlicense: MIT\n---\n\n"
              "# PDF\nRun scripts/fill.py on the file.\n");
        write(m_folder / "reference.md", "The reference.\n");
        write(m_folder / "scripts/fill.py", "print('fill')\n");
        write(m_folder / "long.md", std::string(5000, 'l'));
        write(m_folder / "image.bin", std::string("PNG\0\0data", 9));
        write(m_folder / ".git/config", "[core]\n");
        write(root / "outside/secret.txt", "secret\n");
        fs::create_symlink(root / "outside/secret.txt", m_folder / "escape.txt");
        fs::create_symlink("reference.md", m_folder / "inner.md");
        fs::create_directory_symlink(root / "outside", m_folder / "outdir");
        write(m_workspace / ".claude/skills/other/SKILL.md",
              "---\nname: other\ndescription: Another.\n---\nOther.\n");
        m_library = std::make_unique<SkillLibrary>(skillRoots(m_workspace, {}));
        QVERIFY(m_library->refresh());
    }

    void loadsTheInstructionsAndListsTheFiles() {
        const auto outcome = call({{"name", "pdf"}});
        QVERIFY2(outcome.ok, outcome.output.c_str());
        const QString text = QString::fromStdString(outcome.output);
        QVERIFY2(text.startsWith("Skill \"pdf\" (.claude/skills/pdf/SKILL.md). Its folder is " +
                                 QString::fromStdString(m_folder.string())),
                 qPrintable(text));
        QVERIFY(text.contains("# PDF\nRun scripts/fill.py on the file.\n"));
        QVERIFY(!text.contains("description:"));
        QVERIFY(!text.contains("license"));
        QVERIFY2(text.contains("\n- image.bin\n- inner.md\n- long.md\n- reference.md\n- scripts/fill.py"),
                 qPrintable(text));
        for (const char* absent : {"escape.txt", "outdir", ".git", "- SKILL.md", "secret"})
            QVERIFY2(!text.contains(absent), absent);
        QVERIFY(!outcome.truncated);
    }

    void readsAFileOfTheSkill_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("content");
        QTest::newRow("a file") << "reference.md"
                                << "The reference.\n";
        QTest::newRow("in a subfolder, spelt loosely") << "./scripts//fill.py"
                                                       << "print('fill')\n";
        QTest::newRow("a symlink inside the folder") << "inner.md"
                                                     << "The reference.\n";
        QTest::newRow("its SKILL.md, whole") << "SKILL.md"
                                             << "---\nname: pdf\n";
    }

    void readsAFileOfTheSkill() {
        QFETCH(QString, file);
        QFETCH(QString, content);
        const auto outcome = call({{"name", "pdf"}, {"file", file.toStdString()}});
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QVERIFY2(QString::fromStdString(outcome.output).startsWith(content), outcome.output.c_str());
    }

    void refusesPathsOutOfTheFolder_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("dot-dot")
            << "../other/SKILL.md"
            << "skill: file may not contain \"..\": it is a path inside the skill's folder";
        QTest::newRow("dot-dot that stays inside") << "scripts/../reference.md"
                                                   << "may not contain \"..\"";
        QTest::newRow("absolute")
            << "/etc/passwd"
            << "skill: file must be a path relative to the skill's folder, not an absolute one";
        QTest::newRow("a symlink out")
            << "escape.txt"
            << "skill: skill \"pdf\": escape.txt leads out of the skill's folder (through "
               "a symlink): not read";
        QTest::newRow("through a symlinked directory out") << "outdir/secret.txt"
                                                           << "leads out of the skill's folder";
        QTest::newRow("missing") << "missing.md"
                                 << "no such file in the skill's folder: missing.md";
        QTest::newRow("a directory") << "scripts"
                                     << "scripts is a directory; leave file out to list the skill's files";
        QTest::newRow("empty") << ""
                               << "skill: file is empty";
        QTest::newRow("the folder itself") << "./"
                                           << "file names the folder itself";
        QTest::newRow("binary") << "image.bin"
                                << "image.bin is a binary file (it has NUL bytes)";
    }

    void refusesPathsOutOfTheFolder() {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const auto outcome = call({{"name", "pdf"}, {"file", file.toStdString()}});
        QVERIFY(!outcome.ok);
        QVERIFY2(QString::fromStdString(outcome.output).contains(message), outcome.output.c_str());
        QVERIFY(!QString::fromStdString(outcome.output).contains("secret\n"));
    }

    void unknownSkillNamesTheSkills() {
        const auto outcome = call({{"name", "nope"}});
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.output,
                 std::string("skill: there is no skill \"nope\"; the skills are: other, pdf"));
    }

    void withoutSkillsEveryCallSaysSo() {
        SkillTool tool(nullptr);
        ToolEnv env;
        env.cancellation = &m_cancellation;
        const auto outcome = tool.run({{"name", "pdf"}}, env);
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.output, std::string("skill: there are no skills in this task"));
        QVERIFY(tool.readOnly());
        QVERIFY(tool.concurrencySafe());
    }

    void argumentsAreChecked_data() {
        QTest::addColumn<json>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no name") << json::object() << "skill: missing required argument \"name\"";
        QTest::newRow("name not a string") << json{{"name", 3}} << "argument \"name\" must be a string";
        QTest::newRow("file not a string")
            << json{{"name", "pdf"}, {"file", true}} << "argument \"file\" must be a string";
        QTest::newRow("unknown argument") << json{{"name", "pdf"}, {"path", "x"}}
                                          << "skill: unknown argument \"path\" (allowed: name, file)";
    }

    void argumentsAreChecked() {
        QFETCH(json, arguments);
        QFETCH(QString, message);
        const auto outcome = call(arguments);
        QVERIFY(!outcome.ok);
        QVERIFY2(QString::fromStdString(outcome.output).contains(message), outcome.output.c_str());
    }

    void outputIsCappedWithWhereTheWholeFileIs() {
        const auto file = call({{"name", "pdf"}, {"file", "long.md"}}, 1000);
        QVERIFY(file.ok);
        QVERIFY(file.truncated);
        QVERIFY2(QString::fromStdString(file.output)
                     .contains("[... cut after 1000 of 5000 bytes; the whole file is " +
                               QString::fromStdString((m_folder / "long.md").string())),
                 file.output.c_str());

        const auto body = call({{"name", "pdf"}}, 200);
        QVERIFY(body.ok);
        QVERIFY(body.truncated);
        QVERIFY2(QString::fromStdString(body.output).contains("[... cut after "), body.output.c_str());
        QVERIFY2(QString::fromStdString(body.output).contains("- reference.md"), body.output.c_str());
    }

    void aSkillFileThatBrokeSinceItWasListedSaysSo() {
        const fs::path folder = m_workspace / ".claude/skills/other";
        write(folder / "SKILL.md", "no front matter any more\n");
        const auto outcome = call({{"name", "other"}});
        QVERIFY(!outcome.ok);
        QVERIFY2(
            QString::fromStdString(outcome.output)
                .contains(
                    "skill: .claude/skills/other/SKILL.md changed since it was listed and cannot be read "
                    "now: no front matter"),
            outcome.output.c_str());
        write(folder / "SKILL.md", "---\nname: other\ndescription: Another.\n---\nOther.\n");
    }

    void relativePaths_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("normal");
        QTest::newRow("plain") << "a/b.md"
                               << "a/b.md";
        QTest::newRow("dots and slashes") << "./a//./b.md/"
                                          << "a/b.md";
        QTest::newRow("absolute") << "/a"
                                  << "";
        QTest::newRow("dot-dot") << "a/../b"
                                 << "";
        QTest::newRow("NUL") << QString("a") + QChar(0) + "b"
                             << "";
    }

    void relativePaths() {
        QFETCH(QString, file);
        QFETCH(QString, normal);
        const auto relative = relativeSkillPath(file.toStdString());
        QCOMPARE(relative.ok(), !normal.isEmpty());
        if (relative)
            QCOMPARE(QString::fromStdString(*relative), normal);
    }
};

QTEST_APPLESS_MAIN(TestSkillTool)
#include "tst_skill_tool.moc"
