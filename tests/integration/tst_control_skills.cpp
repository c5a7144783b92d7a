// Skills under `warren run` (DESIGN §13), through the real sandbox: the user's own skills folder
// (~/.claude/skills) is mounted read-only and offered beside the workspace's (.claude/skills), the model loads
// one with the skill tool, and the agent cannot write into the user's folder.
#include "tests/support/AgentRun.h"
#include "tests/support/EventJson.h"
#include "tests/support/WarrenRun.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

bool writeSkill(const QString& folder, const QString& name, const QByteArray& description, const QByteArray& body) {
    if (!QDir().mkpath(folder + "/" + name))
        return false;
    QFile file(folder + "/" + name + "/SKILL.md");
    const QByteArray text = "---\nname: " + name.toUtf8() + "\ndescription: " + description + "\n---\n" + body;
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

} // namespace

class TestControlSkills : public QObject {
    Q_OBJECT

private slots:
    void theUsersAndTheWorkspacesSkillsAreOffered() {
        QTemporaryDir data, workspace, home;
        QVERIFY(writeSkill(home.filePath(".claude/skills"), "release-notes", "Write release notes from the git log",
                           "Read the log since the last tag and group the changes.\n"));
        QVERIFY(writeSkill(workspace.filePath(".claude/skills"), "run-tests", "Run this project's tests",
                           "Run make check.\n"));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {
            turn("skill", {{"name", "release-notes"}}),
            turn("skill", {{"name", "run-tests"}}),
            turn("shell", {{"command", "touch /opt/warren/skills/0/release-notes/extra 2>&1; echo status $?"}}),
            turn("finish", {{"summary", "read both"}}),
        }));
        QProcessEnvironment environment = warrenEnvironment(data.path());
        environment.insert("HOME", home.path());
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "use the skills"},
                                      data.path(), environment);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        const std::string users = toolOutput(events, "call_0_0");
        QVERIFY2(users.find("Read the log since the last tag") != std::string::npos, users.c_str());
        const std::string projects = toolOutput(events, "call_1_0");
        QVERIFY2(projects.find("Run make check.") != std::string::npos, projects.c_str());
        const std::string written = toolOutput(events, "call_2_0");
        QVERIFY2(written.find("status 0") == std::string::npos, written.c_str());
        QVERIFY(!QFile::exists(home.filePath(".claude/skills/release-notes/extra")));
        // Which skills were offered is an event.
        bool offered = false;
        for (const auto& event : events)
            if (event.value("type", "") == "log" && event.dump().find("skills offered") != std::string::npos)
                offered = event.dump().find("release-notes") != std::string::npos &&
                          event.dump().find("run-tests") != std::string::npos;
        QVERIFY2(offered, result.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestControlSkills)
#include "tst_control_skills.moc"
