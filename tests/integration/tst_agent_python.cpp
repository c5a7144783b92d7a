// An edit followed at once by a test must see the edit. Python's bytecode cache trusts a source file whose
// mtime (in whole seconds) and size match what the cache recorded, so a fix that keeps a file's size, made
// in the second its cache was written, ran the old code; and the cache the sandboxed test wrote stayed in
// the user's workspace for their own runs to trip on. Here a real task (`warren run`, the real bubblewrap
// sandbox, the host's python3 bound read-only) finds the worst case waiting: a stale cache in the
// workspace that matches the edited file's mtime and size exactly. The test must see the new code, and no
// bytecode is written into the workspace.
#include "tests/support/AgentRun.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using nlohmann::json;

namespace {

constexpr const char* kPython = "/usr/bin/python3"; // what the sandbox's PATH finds

bool writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

QStringList bytecodeFiles(const QString& root) {
    QStringList found;
    QDirIterator it(root, {"*.pyc"}, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        found << QDir(root).relativeFilePath(it.next());
    found.sort();
    return found;
}

} // namespace

class TestAgentPython : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (warren::test::warrenBinary().isEmpty())
            QSKIP("WARREN_CLI is not set: run through ctest");
        if (!QFileInfo(kPython).isExecutable())
            QSKIP("no /usr/bin/python3 on this host to bind into the sandbox");
    }

    void aTestSeesTheEditNotAStaleCache() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString workspace = root.filePath("workspace");
        const QString dataDir = root.filePath("data");
        QVERIFY(QDir().mkpath(workspace));
        QVERIFY(writeText(workspace + "/mod.py", "VALUE = 1\n"));
        QVERIFY(writeText(workspace + "/helper.py", "def double(x):\n    return 2 * x\n"));
        QVERIFY(writeText(workspace + "/test_mod.py",
                          "import helper, mod\nassert mod.VALUE == 2, f'stale: VALUE is {mod.VALUE}'\n"
                          "print('ok', helper.double(mod.VALUE))\n"));
        // The user's own run left a cache of mod.py; then mod.py changed at the same size and kept its mtime
        // (as an edit within the same second does, to a check that counts whole seconds).
        QProcess compile;
        compile.setWorkingDirectory(workspace);
        compile.start(kPython, {"-c", "import os, py_compile\n"
                                      "st = os.stat('mod.py')\n"
                                      "py_compile.compile('mod.py')\n"
                                      "open('mod.py', 'w').write('VALUE = 2\\n')\n"
                                      "os.utime('mod.py', ns=(st.st_atime_ns, st.st_mtime_ns))\n"});
        QVERIFY(compile.waitForFinished(60000));
        QCOMPARE(compile.exitCode(), 0);
        const QStringList planted = bytecodeFiles(workspace);
        QCOMPARE(planted.size(), 1);
        QFile plantedFile(workspace + "/" + planted[0]);
        QVERIFY(plantedFile.open(QIODevice::ReadOnly));
        const QByteArray plantedBytes = plantedFile.readAll();
        plantedFile.close();

        // The task: run the test, edit mod.py at the same size, run it again at once, finish.
        const QString script = root.filePath("script.json");
        QVERIFY(warren::test::writeScript(
            script, {warren::test::turn("shell", {{"command", "python3 test_mod.py"}}),
                     warren::test::turn("edit_file", {{"path", "mod.py"}, {"old_string", "VALUE = 2"},
                                                      {"new_string", "VALUE = 3"}}),
                     warren::test::turn("write_file", {{"path", "test_mod.py"},
                                                       {"content", "import mod\nassert mod.VALUE == 3, "
                                                                   "f'stale: VALUE is {mod.VALUE}'\nprint('ok', 3)\n"}}),
                     warren::test::turn("shell", {{"command", "python3 test_mod.py"}}),
                     warren::test::turn("finish", {{"summary", "tested"}})}));
        const auto result = warren::test::runWarren({"run", "--json", "--provider", "scripted:" + script,
                                                     "--workspace", workspace, "check mod"},
                                                    dataDir);
        QVERIFY2(result.exitCode == 0, result.err.constData());

        const auto events = warren::test::jsonLines(result.out);
        std::vector<json> shellResults;
        for (const auto& event : events)
            if (event.value("type", "") == "tool_result" && event.value("tool", "") == "shell")
                shellResults.push_back(event["data"]);
        QCOMPARE(shellResults.size(), std::size_t{2});
        for (const auto& data : shellResults) {
            QVERIFY2(data.value("exit_code", -1) == 0, data.dump().c_str());
            QVERIFY2(data.value("output", "").find("ok") != std::string::npos, data.dump().c_str());
        }
        // Nothing compiled into the workspace; the user's own cache is left as it was.
        QCOMPARE(bytecodeFiles(workspace), planted);
        QVERIFY(plantedFile.open(QIODevice::ReadOnly));
        QCOMPARE(plantedFile.readAll(), plantedBytes);
    }
};

QTEST_GUILESS_MAIN(TestAgentPython)
#include "tst_agent_python.moc"
