// The file tools (read_file, write_file, edit_file, list_files, search) against a real workspace: good
// calls and their exact output, strict arguments, every way out of the workspace refused, symlinks
// (file, directory, dangling) never followed out, caps with notes, binary files refused, atomic writes
// that leave no temporary file, file changes reported, and content keys that change with the content.

#include "agent_core/tools/EditFileTool.h"
#include "agent_core/tools/ListFilesTool.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/SearchTool.h"
#include "agent_core/tools/WriteFileTool.h"
#include "common/Utf8.h"
#include "tests/unit/WorkspaceTree.h"

#include <QtTest>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace warren;
using namespace warren::agent;
using namespace warren::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Names in a directory, sorted, for "no temporary file left behind".
QStringList namesIn(const fs::path& directory) {
    QStringList names;
    for (const auto& entry : fs::directory_iterator(directory))
        names << QString::fromStdString(entry.path().filename().native());
    names.sort();
    return names;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

} // namespace

class TestFileTools : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_workspace;
    fs::path m_outside;
    Cancellation m_cancellation;
    struct ReportedChange {
        std::string path;
        FileChange change;
        std::optional<FileDiff> diff;
    };
    std::vector<ReportedChange> m_changes;
    std::size_t m_outputLimit = 16 * 1024;

    ToolEnv env() {
        ToolEnv env;
        env.workspace = m_workspace;
        env.outputLimitBytes = m_outputLimit;
        env.cancellation = &m_cancellation;
        env.onFileChanged = [this](const std::string& path, FileChange change, const FileDiff* diff) {
            m_changes.push_back({path, change, diff ? std::optional<FileDiff>(*diff) : std::nullopt});
        };
        return env;
    }

    fs::path ws(const std::string& relative) const { return m_workspace / relative; }

    // A small tree shared by the tests: files, a subdirectory, symlinks in and out, a dangling one.
    void makeTree() {
        writeFile(ws("file.txt"), "one\ntwo\nthree\n");
        writeFile(ws("a/b.txt"), "b\n");
        writeFile(m_outside / "secret.txt", "secret\n");
        fs::create_symlink("file.txt", ws("link_file"));
        fs::create_directory_symlink("a", ws("link_dir"));
        fs::create_directory_symlink("../outside", ws("link_out"));
        fs::create_symlink(m_outside / "secret.txt", ws("link_abs_out"));
        fs::create_symlink("../outside/new.txt", ws("dangling_out"));
        fs::create_symlink("new_target.txt", ws("dangling_in"));
    }

    // The refusals every path-taking tool shares: each way out of the workspace.
    static void addEscapeRows() {
        QTest::newRow("dotdot") << "../outside/secret.txt";
        QTest::newRow("absolute elsewhere") << "/etc/passwd";
        QTest::newRow("directory symlink out") << "link_out/secret.txt";
        QTest::newRow("file symlink out") << "link_abs_out";
        QTest::newRow("dangling symlink out") << "dangling_out";
    }

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_workspace = fs::path(m_dir->path().toStdString()) / "ws";
        m_outside = fs::path(m_dir->path().toStdString()) / "outside";
        fs::create_directories(m_workspace);
        fs::create_directories(m_outside);
        m_changes.clear();
        m_outputLimit = 16 * 1024;
        makeTree();
    }

    void specsDescribeTheArguments() {
        for (const auto& spec : {ReadFileTool::spec(), WriteFileTool::spec(), EditFileTool::spec(),
                                 ListFilesTool::spec(), SearchTool::spec()}) {
            QVERIFY(!spec.description.empty());
            QCOMPARE(q(spec.parameters.at("type").get<std::string>()), "object");
            QVERIFY(spec.parameters.at("properties").is_object());
            QCOMPARE(spec.parameters.at("additionalProperties"), json(false));
        }
        QCOMPARE(q(ReadFileTool::spec().name), "read_file");
        QCOMPARE(ReadFileTool::spec().parameters.at("required"), json({"path"}));
        QCOMPARE(EditFileTool::spec().parameters.at("required"), json({"path", "old_string", "new_string"}));
        QCOMPARE(q(SearchTool::spec().name), "search");
        QVERIFY(ReadFileTool().readOnly() && ListFilesTool().readOnly() && SearchTool().readOnly());
        QVERIFY(!WriteFileTool().readOnly() && !EditFileTool().readOnly());
    }

    // ---- read_file

    void readFile_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QByteArray>("arguments"); // "path" is f.txt unless given
        QTest::addColumn<QString>("output");

        QTest::newRow("whole file") << QByteArray("a\nb\n") << QByteArray("{}") << "     1\ta\n     2\tb\n";
        QTest::newRow("last line without newline")
            << QByteArray("a\nb") << QByteArray("{}") << "     1\ta\n     2\tb\n";
        QTest::newRow("offset") << QByteArray("a\nb\nc\n") << QByteArray(R"({"offset":1})")
                                << "     2\tb\n     3\tc\n";
        QTest::newRow("limit, with how to read on")
            << QByteArray("a\nb\nc\n") << QByteArray(R"({"limit":1})")
            << "     1\ta\n[lines 1-1 shown; f.txt goes on: use offset=1 to read on]";
        QTest::newRow("offset and limit")
            << QByteArray("a\nb\nc\n") << QByteArray(R"({"offset":1,"limit":1})")
            << "     2\tb\n[lines 2-2 shown; f.txt goes on: use offset=2 to read on]";
        QTest::newRow("limit reaching the end exactly")
            << QByteArray("a\nb\n") << QByteArray(R"({"limit":2})") << "     1\ta\n     2\tb\n";
        QTest::newRow("empty file") << QByteArray() << QByteArray("{}") << "(f.txt is empty)";
        QTest::newRow("empty lines count")
            << QByteArray("\n\nx\n") << QByteArray(R"({"offset":2})") << "     3\tx\n";
        QTest::newRow("invalid UTF-8 replaced")
            << QByteArray("caf\xE9\n") << QByteArray("{}") << QString::fromUtf8("     1\tcaf\xEF\xBF\xBD\n");
        QTest::newRow("integral float offset")
            << QByteArray("a\nb\n") << QByteArray(R"({"offset":1.0})") << "     2\tb\n";
        QTest::newRow("null optional argument")
            << QByteArray("a\n") << QByteArray(R"({"offset":null})") << "     1\ta\n";
        QTest::newRow("NUL after the binary probe is text")
            << QByteArray(9000, 'x').append('\n').append("y\0z\n", 4) << QByteArray(R"({"offset":1})")
            << QString::fromUtf8("     2\ty\0z\n", 11);
        QTest::newRow("absolute /workspace path")
            << QByteArray("a\n") << QByteArray(R"({"path":"/workspace/f.txt"})") << "     1\ta\n";
        QTest::newRow("symlink inside")
            << QByteArray("a\n") << QByteArray(R"({"path":"link_f"})") << "     1\ta\n";
        QTest::newRow("line numbers wider than six digits keep the tab")
            << QByteArray(1000000, '\n').append("last\n") << QByteArray(R"({"offset":1000000})")
            << "1000001\tlast\n";
    }
    void readFile() {
        QFETCH(QByteArray, content);
        QFETCH(QByteArray, arguments);
        QFETCH(QString, output);
        writeFile(ws("f.txt"), content.toStdString());
        fs::create_symlink("f.txt", ws("link_f"));
        json args = json::parse(arguments.toStdString());
        if (!args.contains("path"))
            args["path"] = "f.txt";
        const ToolOutcome outcome = ReadFileTool().run(args, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), output);
        QVERIFY(!outcome.truncated);
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(m_changes.empty());
    }

    void readFileFailures_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message"); // the output contains it

        QTest::newRow("unknown argument listed with the allowed ones")
            << R"({"path":"file.txt","lines":3})"
            << R"(read_file: unknown argument "lines" (allowed: path, offset, limit))";
        QTest::newRow("missing path") << "{}"
                                      << R"(read_file: missing required argument "path")";
        QTest::newRow("path of the wrong type")
            << R"({"path":5})"
            << R"(read_file: argument "path" must be a string, got the integer 5)";
        QTest::newRow("negative offset")
            << R"({"path":"file.txt","offset":-1})"
            << R"(read_file: argument "offset" must be a non-negative integer, got the integer -1)";
        QTest::newRow("fractional limit") << R"({"path":"file.txt","limit":1.5})"
                                          << R"(argument "limit" must be a non-negative integer)";
        QTest::newRow("offset as a string")
            << R"({"path":"file.txt","offset":"1"})"
            << R"(argument "offset" must be a non-negative integer, got a string)";
        QTest::newRow("zero limit") << R"({"path":"file.txt","limit":0})"
                                    << "read_file: limit must be at least 1";
        QTest::newRow("arguments not an object") << R"(["file.txt"])"
                                                 << "read_file: arguments must be an object, got an array";
        QTest::newRow("missing file") << R"({"path":"nope.txt"})"
                                      << "read_file: no such file: nope.txt";
        QTest::newRow("directory") << R"({"path":"a"})"
                                   << "read_file: a is a directory";
        QTest::newRow("offset past the end")
            << R"({"path":"file.txt","offset":5})"
            << "read_file: offset 5 is past the end of file.txt (it has 3 lines)";
        QTest::newRow("empty path") << R"({"path":""})"
                                    << "read_file: path is empty";
        QTest::newRow("dotdot") << R"({"path":"../outside/secret.txt"})"
                                << "read_file: path \"../outside/secret.txt\" is outside the workspace";
        QTest::newRow("absolute elsewhere") << R"({"path":"/etc/passwd"})"
                                            << "is outside the workspace";
        QTest::newRow("directory symlink out") << R"({"path":"link_out/secret.txt"})"
                                               << "is outside the workspace";
        QTest::newRow("file symlink out") << R"({"path":"link_abs_out"})"
                                          << "is outside the workspace";
        QTest::newRow("dangling symlink in") << R"({"path":"dangling_in"})"
                                             << "read_file: no such file: new_target.txt";
    }
    void readFileFailures() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        const ToolOutcome outcome = ReadFileTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.exitCode, 1);
        QVERIFY2(q(outcome.output).contains(message), outcome.output.c_str());
    }

    void readFileRefusesBinaryAndSpecialFiles() {
        writeFile(ws("bin.dat"), std::string("ELF\0\1\2", 6));
        ToolOutcome outcome = ReadFileTool().run({{"path", "bin.dat"}}, env());
        QVERIFY(!outcome.ok);
        QCOMPARE(q(outcome.output),
                 "read_file: bin.dat is a binary file (it has NUL bytes); it cannot be shown as text");

        QCOMPARE(::mkfifo(ws("fifo").c_str(), 0600), 0);
        outcome = ReadFileTool().run({{"path", "fifo"}}, env()); // must not block on the FIFO
        QVERIFY(!outcome.ok);
        QCOMPARE(q(outcome.output), "read_file: fifo is not a regular file");
    }

    void readFileCapsHugeFilesAndSaysHowToGoOn() {
        std::string text;
        for (int i = 1; i <= 100000; ++i)
            text += "line " + std::to_string(i) + "\n";
        writeFile(ws("huge.txt"), text);
        m_outputLimit = 1000;
        const ToolOutcome outcome = ReadFileTool().run({{"path", "huge.txt"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        const auto note = outcome.output.find("\n[output limit of 1000 bytes reached after line ");
        QVERIFY2(note != std::string::npos, outcome.output.c_str());
        QVERIFY(note <= 1000);
        // The note's offset is the first line not shown whole: reading from it goes on seamlessly.
        const QRegularExpressionMatch match =
            QRegularExpression("reached after line (\\d+); use offset=(\\d+) to read on]$")
                .match(q(outcome.output));
        QVERIFY(match.hasMatch());
        const int next = match.captured(2).toInt();
        QCOMPARE(match.captured(1).toInt(), next);
        QVERIFY(q(outcome.output).contains(QString("%1\tline %2\n").arg(next, 6).arg(next)));
        const ToolOutcome rest =
            ReadFileTool().run({{"path", "huge.txt"}, {"offset", next}, {"limit", 1}}, env());
        QCOMPARE(q(rest.output).section('\n', 0, 0), QString("%1\tline %2").arg(next + 1, 6).arg(next + 1));
    }

    void readFileCutsAnOverlongLineOnACharacterBoundary() {
        std::string text;
        for (int i = 0; i < 100000; ++i)
            text += "\xC3\xA9"; // é, two bytes
        writeFile(ws("long.txt"), text + "\nnext\n");
        m_outputLimit = 101;
        const ToolOutcome outcome = ReadFileTool().run({{"path", "long.txt"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QVERIFY2(!firstInvalidUtf8(outcome.output), "output must stay valid UTF-8");
        QVERIFY(outcome.output.starts_with("     1\t\xC3\xA9"));
        QVERIFY2(q(outcome.output)
                     .contains("[line 1 is longer than the output limit of 101 bytes; only its start "
                               "is shown. Use offset=1 to read past it]"),
                 outcome.output.c_str());
    }

    void readFileStopsWhenAskedTo() {
        Cancellation cancellation;
        cancellation.request(StopRequest::Cancel);
        ToolEnv stopped = env();
        stopped.cancellation = &cancellation;
        ToolOutcome outcome = ReadFileTool().run({{"path", "file.txt"}}, stopped);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);

        ToolEnv late = env();
        late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        outcome = ReadFileTool().run({{"path", "file.txt"}}, late);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.timedOut);
        QVERIFY(q(outcome.output).contains("stopped at the step's deadline"));
    }

    // ---- content keys

    void readFileContentKeyFollowsTheFile() {
        ReadFileTool tool;
        const json args = {{"path", "file.txt"}};
        std::optional<std::string> first;
        // A change within the current clock tick could go unseen, so a key is only given once it passed.
        QTRY_VERIFY((first = tool.contentKey(args, env())).has_value());
        QCOMPARE(tool.contentKey(args, env()), first);                              // no write: the same key
        QCOMPARE(tool.contentKey({{"path", "/workspace/file.txt"}}, env()), first); // the same file
        QCOMPARE(tool.contentKey({{"path", "link_file"}}, env()), first);

        // Same size, new content: a write changes the identity (ctime, inode) even so.
        QVERIFY(WriteFileTool().run({{"path", "file.txt"}, {"content", "ONE\nTWO\nTHREE\n"}}, env()).ok);
        QVERIFY(tool.contentKey(args, env()) != first);
        std::optional<std::string> second;
        QTRY_VERIFY((second = tool.contentKey(args, env())).has_value());
        QVERIFY(second != first);

        // Written in place (same inode), as a shell command would.
        std::ofstream(ws("file.txt"), std::ios::app) << "four\n";
        QVERIFY(tool.contentKey(args, env()) != second);

        // The output limit shapes the output, so it is part of the key.
        std::optional<std::string> third;
        QTRY_VERIFY((third = tool.contentKey(args, env())).has_value());
        m_outputLimit = 10;
        QVERIFY(tool.contentKey(args, env()) != third);

        QCOMPARE(tool.contentKey({{"path", "nope.txt"}}, env()), std::nullopt);
        QCOMPARE(tool.contentKey({{"path", "../outside/secret.txt"}}, env()), std::nullopt);
        QCOMPARE(tool.contentKey({{"bad", 1}}, env()), std::nullopt);
    }

    void listAndSearchContentKeysFollowTheTree() {
        writeFile(ws("deep/1/2/3/far.txt"), "far\n");
        ListFilesTool list;
        SearchTool search;
        const json listArgs = {{"depth", 2}};
        const json searchArgs = {{"pattern", "b"}};
        std::optional<std::string> listKey;
        std::optional<std::string> searchKey;
        QTRY_VERIFY((listKey = list.contentKey(listArgs, env())).has_value());
        QTRY_VERIFY((searchKey = search.contentKey(searchArgs, env())).has_value());
        QCOMPARE(list.contentKey(listArgs, env()), listKey);
        QCOMPARE(search.contentKey(searchArgs, env()), searchKey);

        // Beyond the listing's depth: the listing cannot change, nor its key; the search walks it.
        std::ofstream(ws("deep/1/2/3/far.txt"), std::ios::app) << "b\n";
        QTRY_VERIFY(list.contentKey(listArgs, env()).has_value());
        QCOMPARE(list.contentKey(listArgs, env()), listKey);
        QVERIFY(search.contentKey(searchArgs, env()) != searchKey);

        const auto beforeAppend = searchKey;
        QTRY_VERIFY((searchKey = search.contentKey(searchArgs, env())).has_value());
        QVERIFY(searchKey != beforeAppend);
        writeFile(ws("a/new.txt"), "new\n");
        QVERIFY(list.contentKey(listArgs, env()) != listKey);
        QVERIFY(search.contentKey(searchArgs, env()) != searchKey);
        QCOMPARE(list.contentKey({{"path", "nope"}}, env()), std::nullopt);
        QCOMPARE(search.contentKey({{"pattern", "x"}, {"path", "../outside"}}, env()), std::nullopt);
    }

    // ---- write_file

    void writeFileCreatesWithParents() {
        const ToolOutcome outcome =
            WriteFileTool().run({{"path", "new/dir/f.txt"}, {"content", "hi\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), "wrote 3 bytes to new/dir/f.txt (new file)");
        QCOMPARE(outcome.bytesWritten, 3u);
        QCOMPARE(q(test::readFile(ws("new/dir/f.txt"))), "hi\n");
        QCOMPARE(m_changes.size(), 1u);
        QCOMPARE(q(m_changes[0].path), "new/dir/f.txt");
        QCOMPARE(q(std::string(toString(m_changes[0].change))), "created");
        QCOMPARE(namesIn(ws("new/dir")), QStringList{"f.txt"}); // no temporary file left behind

        const mode_t mask = ::umask(0);
        ::umask(mask);
        QCOMPARE(modeOf(ws("new/dir/f.txt")), 0666 & ~mask);
    }

    void writeFileReplacesKeepingTheMode() {
        ::chmod(ws("file.txt").c_str(), 0750);
        const ToolOutcome outcome =
            WriteFileTool().run({{"path", "/workspace/file.txt"}, {"content", ""}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), "wrote 0 bytes to file.txt");
        QCOMPARE(q(test::readFile(ws("file.txt"))), "");
        QCOMPARE(modeOf(ws("file.txt")), mode_t{0750});
        QCOMPARE(m_changes.size(), 1u);
        QCOMPARE(q(std::string(toString(m_changes[0].change))), "modified");
        QVERIFY(!namesIn(m_workspace).join(",").contains(".warren-"));
    }

    // A file rewritten at the same size must not look unchanged to a check that counts mtime in whole
    // seconds (Python's bytecode cache, make): the new version's mtime is past the old one's second, even
    // when the old one's is ahead of the clock (set here to an hour ahead, so the clock cannot pass it).
    void rewritesMoveTheMtimePastTheOldSecond_data() {
        QTest::addColumn<bool>("edit");
        QTest::newRow("write_file") << false;
        QTest::newRow("edit_file") << true;
    }
    void rewritesMoveTheMtimePastTheOldSecond() {
        QFETCH(bool, edit);
        writeFile(ws("mod.py"), "VALUE = 1\n");
        struct stat before {};
        QCOMPARE(::stat(ws("mod.py").c_str(), &before), 0);
        const struct timespec ahead[2] = {{0, UTIME_OMIT}, {before.st_mtim.tv_sec + 3600, 500}};
        QCOMPARE(::utimensat(AT_FDCWD, ws("mod.py").c_str(), ahead, 0), 0);
        const ToolOutcome outcome =
            edit ? EditFileTool().run({{"path", "mod.py"}, {"old_string", "1"}, {"new_string", "2"}}, env())
                 : WriteFileTool().run({{"path", "mod.py"}, {"content", "VALUE = 2\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        struct stat after {};
        QCOMPARE(::stat(ws("mod.py").c_str(), &after), 0);
        QCOMPARE(after.st_size, before.st_size);
        QCOMPARE(after.st_mtim.tv_sec, before.st_mtim.tv_sec + 3601);
        QCOMPARE(q(test::readFile(ws("mod.py"))), "VALUE = 2\n");
    }

    // The change's diff, for file_changed: against nothing for a new file, against the old content for a
    // replaced one, and only "binary" when either side is not text.
    void writeFileReportsTheDiff() {
        ToolOutcome outcome = WriteFileTool().run({{"path", "new.txt"}, {"content", "hi\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        outcome = WriteFileTool().run({{"path", "file.txt"}, {"content", "one\n2\nthree\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(m_changes.size(), 2u);
        QVERIFY(m_changes[0].diff && m_changes[1].diff);
        QCOMPARE(q(m_changes[0].diff->text), "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n");
        QCOMPARE(m_changes[0].diff->added, 1u);
        QCOMPARE(m_changes[0].diff->removed, 0u);
        QCOMPARE(q(m_changes[1].diff->text),
                 "--- a/file.txt\n+++ b/file.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
        QCOMPARE(m_changes[1].diff->added, 1u);
        QCOMPARE(m_changes[1].diff->removed, 1u);
        QVERIFY(!m_changes[1].diff->truncated && !m_changes[1].diff->binary);

        writeFile(ws("blob.bin"), std::string("a\0b", 3));
        outcome = WriteFileTool().run({{"path", "blob.bin"}, {"content", "text\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(m_changes.size(), 3u);
        QVERIFY(m_changes[2].diff);
        QVERIFY(m_changes[2].diff->binary);
        QVERIFY(m_changes[2].diff->text.empty());
    }

    void writeFileThroughSymlinksInside() {
        ToolOutcome outcome = WriteFileTool().run({{"path", "link_file"}, {"content", "via link\n"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QVERIFY(fs::is_symlink(ws("link_file"))); // the link stays, its target changes
        QCOMPARE(q(test::readFile(ws("file.txt"))), "via link\n");
        outcome = WriteFileTool().run({{"path", "dangling_in"}, {"content", "x"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(test::readFile(ws("new_target.txt"))), "x");
        outcome = WriteFileTool().run({{"path", "link_dir/c.txt"}, {"content", "c"}}, env());
        QVERIFY(outcome.ok);
        QCOMPARE(q(test::readFile(ws("a/c.txt"))), "c");
        QCOMPARE(m_changes.size(), 3u);
        QCOMPARE(q(m_changes[0].path), "file.txt");
        QCOMPARE(q(std::string(toString(m_changes[0].change))), "modified");
        QCOMPARE(q(m_changes[1].path), "new_target.txt");
        QCOMPARE(q(std::string(toString(m_changes[1].change))), "created");
        QCOMPARE(q(m_changes[2].path), "a/c.txt");
    }

    void writeFileRefusesEscapes_data() {
        QTest::addColumn<QString>("path");
        addEscapeRows();
        QTest::newRow("new file under a symlink out") << "link_out/new.txt";
    }
    void writeFileRefusesEscapes() {
        QFETCH(QString, path);
        const QStringList before = namesIn(m_outside);
        const ToolOutcome outcome =
            WriteFileTool().run({{"path", path.toStdString()}, {"content", "pwned"}}, env());
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.output.starts_with("write_file: path \"") &&
                     q(outcome.output).contains("is outside the workspace"),
                 outcome.output.c_str());
        QCOMPARE(namesIn(m_outside), before);
        QCOMPARE(q(test::readFile(m_outside / "secret.txt")), "secret\n");
        QVERIFY(m_changes.empty());
    }

    void writeFileFailures_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");

        QTest::newRow("directory") << R"({"path":"a","content":"x"})"
                                   << "write_file: a is a directory";
        QTest::newRow("workspace root") << R"({"path":".","content":"x"})"
                                        << "write_file: . is a directory";
        QTest::newRow("missing content") << R"({"path":"x.txt"})"
                                         << R"(write_file: missing required argument "content")";
        QTest::newRow("content not a string")
            << R"({"path":"x.txt","content":["a"]})"
            << R"(write_file: argument "content" must be a string, got an array)";
        QTest::newRow("unknown argument")
            << R"({"path":"x.txt","content":"","mode":"0755"})"
            << R"(write_file: unknown argument "mode" (allowed: path, content))";
        QTest::newRow("parent is a file") << R"({"path":"file.txt/x","content":""})"
                                          << "write_file: cannot create the directory file.txt";
        QTest::newRow("NUL in the path") << "{\"path\":\"a\\u0000b\",\"content\":\"\"}"
                                         << "write_file: path contains a NUL byte";
    }
    void writeFileFailures() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        const ToolOutcome outcome = WriteFileTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY(!outcome.ok);
        QVERIFY2(q(outcome.output).startsWith(message), outcome.output.c_str());
        QVERIFY(m_changes.empty());
        QCOMPARE(outcome.bytesWritten, 0u);
    }

    void writeFileRefusesReadOnlyFiles() {
        ::chmod(ws("file.txt").c_str(), 0444);
        const ToolOutcome outcome = WriteFileTool().run({{"path", "file.txt"}, {"content", "x"}}, env());
        QVERIFY(!outcome.ok);
        QCOMPARE(
            q(outcome.output),
            "write_file: file.txt is read-only; change its permissions first if it really should change");
        QCOMPARE(q(test::readFile(ws("file.txt"))), "one\ntwo\nthree\n");
        QVERIFY(!namesIn(m_workspace).join(",").contains(".warren-"));
    }

    void writeFileIsAtomic() {
        // A reader holding the old file keeps reading the old content: the new one arrives by rename.
        std::ifstream old(ws("file.txt"));
        const ToolOutcome outcome = WriteFileTool().run({{"path", "file.txt"}, {"content", "new\n"}}, env());
        QVERIFY(outcome.ok);
        std::stringstream held;
        held << old.rdbuf();
        QCOMPARE(q(held.str()), "one\ntwo\nthree\n");
        QCOMPARE(q(test::readFile(ws("file.txt"))), "new\n");
        const QStringList expected{"a",        "dangling_in", "dangling_out", "file.txt", "link_abs_out",
                                   "link_dir", "link_file",   "link_out"};
        QCOMPARE(namesIn(m_workspace), expected);
    }

    // ---- edit_file

    void editFile_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("arguments"); // "path" is f.txt
        QTest::addColumn<QString>("after");
        QTest::addColumn<QString>("output");

        QTest::newRow("unique replacement") << "hello world\n"
                                            << R"({"old_string":"world","new_string":"there"})"
                                            << "hello there\n"
                                            << "edited f.txt: replaced 1 occurrence at line 1";
        QTest::newRow("multi-line, line reported") << "a\nb\nc\nd\n"
                                                   << R"({"old_string":"c\nd","new_string":"C"})"
                                                   << "a\nb\nC\n"
                                                   << "edited f.txt: replaced 1 occurrence at line 3";
        QTest::newRow("replace all") << "x a x a\nx\n"
                                     << R"({"old_string":"x","new_string":"yy","replace_all":true})"
                                     << "yy a yy a\nyy\n"
                                     << "edited f.txt: replaced 3 occurrences, the first at line 1";
        QTest::newRow("replace_all false with a unique match")
            << "x a\n"
            << R"({"old_string":"a","new_string":"b","replace_all":false})"
            << "x b\n"
            << "edited f.txt: replaced 1 occurrence at line 1";
        QTest::newRow("deletion") << "keep drop keep"
                                  << R"({"old_string":" drop","new_string":""})"
                                  << "keep keep"
                                  << "edited f.txt: replaced 1 occurrence at line 1";
        QTest::newRow("occurrences do not overlap") << "aaa"
                                                    << R"({"old_string":"aa","new_string":"b"})"
                                                    << "ba"
                                                    << "edited f.txt: replaced 1 occurrence at line 1";
    }
    void editFile() {
        QFETCH(QString, before);
        QFETCH(QString, arguments);
        QFETCH(QString, after);
        QFETCH(QString, output);
        writeFile(ws("f.txt"), before.toStdString());
        ::chmod(ws("f.txt").c_str(), 0640);
        json args = json::parse(arguments.toStdString());
        args["path"] = "f.txt";
        const ToolOutcome outcome = EditFileTool().run(args, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), output);
        QCOMPARE(q(test::readFile(ws("f.txt"))), after);
        QCOMPARE(outcome.bytesWritten, static_cast<std::uint64_t>(after.toUtf8().size()));
        QCOMPARE(modeOf(ws("f.txt")), mode_t{0640});
        QCOMPARE(m_changes.size(), 1u);
        QCOMPARE(q(m_changes[0].path), "f.txt");
        QCOMPARE(q(std::string(toString(m_changes[0].change))), "modified");
        QVERIFY(!namesIn(m_workspace).join(",").contains(".warren-"));
    }

    void editFileReportsTheDiff() {
        const ToolOutcome outcome =
            EditFileTool().run({{"path", "file.txt"}, {"old_string", "two"}, {"new_string", "TWO\n2b"}}, env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(m_changes.size(), 1u);
        QVERIFY(m_changes[0].diff);
        QCOMPARE(q(m_changes[0].diff->text),
                 "--- a/file.txt\n+++ b/file.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n");
        QCOMPARE(m_changes[0].diff->added, 2u);
        QCOMPARE(m_changes[0].diff->removed, 1u);
        QVERIFY(!m_changes[0].diff->truncated && !m_changes[0].diff->binary);
    }

    void editFileFailures_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");

        QTest::newRow("not unique") << R"({"path":"f.txt","old_string":"a","new_string":"b"})"
                                    << "edit_file: old_string occurs 3 times in f.txt; add surrounding lines "
                                       "to make it unique, or set "
                                       "replace_all to replace every one";
        QTest::newRow("not found") << R"({"path":"f.txt","old_string":"zzz","new_string":"b"})"
                                   << "edit_file: old_string was not found in f.txt (it must match exactly";
        QTest::newRow("empty old_string")
            << R"({"path":"f.txt","old_string":"","new_string":"b"})"
            << "edit_file: old_string is empty; to create or overwrite a whole file use write_file";
        QTest::newRow("nothing would change") << R"({"path":"f.txt","old_string":"a","new_string":"a"})"
                                              << "edit_file: old_string and new_string are the same";
        QTest::newRow("missing file") << R"({"path":"nope.txt","old_string":"a","new_string":"b"})"
                                      << "edit_file: no such file: nope.txt (write_file creates a file)";
        QTest::newRow("directory") << R"({"path":"a","old_string":"a","new_string":"b"})"
                                   << "edit_file: a is a directory";
        QTest::newRow("binary") << R"({"path":"bin.dat","old_string":"a","new_string":"b"})"
                                << "edit_file: bin.dat is a binary file";
        QTest::newRow("replace_all of the wrong type")
            << R"({"path":"f.txt","old_string":"a","new_string":"b","replace_all":"yes"})"
            << R"(edit_file: argument "replace_all" must be true or false, got a string)";
        QTest::newRow("missing new_string") << R"({"path":"f.txt","old_string":"a"})"
                                            << R"(edit_file: missing required argument "new_string")";
        QTest::newRow("unknown argument")
            << R"({"path":"f.txt","old":"a","new_string":"b"})"
            << R"(edit_file: unknown argument "old" (allowed: path, old_string, new_string, replace_all))";
        QTest::newRow("outside") << R"({"path":"link_out/secret.txt","old_string":"secret","new_string":"x"})"
                                 << "edit_file: path \"link_out/secret.txt\" is outside the workspace";
        QTest::newRow("read-only") << R"({"path":"ro.txt","old_string":"a","new_string":"b"})"
                                   << "edit_file: ro.txt is read-only";
    }
    void editFileFailures() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        writeFile(ws("f.txt"), "a a a\n");
        writeFile(ws("bin.dat"), std::string("a\0b", 3));
        writeFile(ws("ro.txt"), "a\n");
        ::chmod(ws("ro.txt").c_str(), 0444);
        const ToolOutcome outcome = EditFileTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY(!outcome.ok);
        QVERIFY2(q(outcome.output).startsWith(message), outcome.output.c_str());
        QCOMPARE(q(test::readFile(ws("f.txt"))), "a a a\n");
        QCOMPARE(q(test::readFile(ws("ro.txt"))), "a\n");
        QCOMPARE(q(test::readFile(m_outside / "secret.txt")), "secret\n");
        QVERIFY(m_changes.empty());
    }

    // ---- list_files

    void listFiles_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("output");

        const QString top = ".git/\na/\na/b.txt\na/c/\nlink_dir -> a\nlink_file -> z.txt\nz.txt\n";
        QTest::newRow("default depth 2") << "{}" << top;
        QTest::newRow("null arguments") << "null" << top;
        QTest::newRow("depth 1") << R"({"depth":1})"
                                 << ".git/\na/\nlink_dir -> a\nlink_file -> z.txt\nz.txt\n";
        QTest::newRow("depth 4") << R"({"depth":4})"
                                 << ".git/\na/\na/b.txt\na/c/\na/c/d.txt\na/c/e/\na/c/e/f.txt\nlink_dir -> "
                                    "a\nlink_file -> z.txt\nz.txt\n";
        QTest::newRow("subdirectory") << R"({"path":"a"})"
                                      << "a/b.txt\na/c/\na/c/d.txt\na/c/e/\n";
        QTest::newRow("subdirectory, absolute") << R"({"path":"/workspace/a/c","depth":1})"
                                                << "a/c/d.txt\na/c/e/\n";
        QTest::newRow("through a directory symlink inside") << R"({"path":"link_dir","depth":1})"
                                                            << "a/b.txt\na/c/\n";
        QTest::newRow("depth past the maximum is limited") << R"({"path":"a/c/e","depth":99})"
                                                           << "a/c/e/f.txt\n[depth limited to 10]\n";
    }
    void listFiles() {
        QFETCH(QString, arguments);
        QFETCH(QString, output);
        fs::remove_all(m_workspace);
        writeFile(ws(".git/HEAD"), "ref\n");
        writeFile(ws("a/b.txt"), "b");
        writeFile(ws("a/c/d.txt"), "d");
        writeFile(ws("a/c/e/f.txt"), "f");
        writeFile(ws("z.txt"), "z");
        fs::create_symlink("z.txt", ws("link_file"));
        fs::create_directory_symlink("a", ws("link_dir"));
        const ToolOutcome outcome = ListFilesTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), output);
    }

    // A directory's entries come right after it: "x-y" < "x/" < "x0", as the paths sort.
    void listFilesSortsAsPaths() {
        writeFile(ws("s/x-y"), "");
        writeFile(ws("s/x/in"), "");
        writeFile(ws("s/x0"), "");
        fs::create_directories(ws("empty"));
        ToolOutcome outcome = ListFilesTool().run({{"path", "s"}}, env());
        QCOMPARE(q(outcome.output), "s/x-y\ns/x/\ns/x/in\ns/x0\n");
        outcome = ListFilesTool().run({{"path", "empty"}}, env());
        QVERIFY(outcome.ok);
        QCOMPARE(q(outcome.output), "(empty is empty)\n");
    }

    void listFilesFailures_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");

        QTest::newRow("depth 0") << R"({"depth":0})"
                                 << "list_files: depth must be at least 1";
        QTest::newRow("depth of the wrong type")
            << R"({"depth":"2"})"
            << R"(list_files: argument "depth" must be a non-negative integer, got a string)";
        QTest::newRow("a file")
            << R"({"path":"file.txt"})"
            << "list_files: file.txt is not a directory; read_file shows a file's content";
        QTest::newRow("missing") << R"({"path":"nope"})"
                                 << "list_files: no such directory: nope";
        QTest::newRow("unknown argument")
            << R"({"recursive":true})"
            << R"(list_files: unknown argument "recursive" (allowed: path, depth))";
        QTest::newRow("dotdot") << R"({"path":".."})"
                                << "list_files: path \"..\" is outside the workspace";
        QTest::newRow("symlink out") << R"({"path":"link_out"})"
                                     << "list_files: path \"link_out\" is outside";
        QTest::newRow("absolute elsewhere") << R"({"path":"/etc"})"
                                            << "list_files: path \"/etc\" is outside";
    }
    void listFilesFailures() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        const ToolOutcome outcome = ListFilesTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY(!outcome.ok);
        QVERIFY2(q(outcome.output).startsWith(message), outcome.output.c_str());
    }

    void listFilesNeverFollowsSymlinks() {
        fs::create_directory_symlink("..", ws("a/up")); // a loop if followed
        const ToolOutcome outcome = ListFilesTool().run({{"depth", 10}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(q(outcome.output).contains("a/up -> ..\n"));
        QVERIFY(q(outcome.output).contains("link_out -> ../outside\n"));
        QVERIFY(q(outcome.output).contains("dangling_out -> ../outside/new.txt\n"));
        QVERIFY(!q(outcome.output).contains("link_out/"));
        QVERIFY(!q(outcome.output).contains("a/up/"));
        QVERIFY(!q(outcome.output).contains("link_dir/"));
    }

    void listFilesCapsEntries() {
        for (int i = 0; i < 2100; ++i)
            writeFile(ws("many/f" + std::to_string(10000 + i)), "");
        m_outputLimit = 1024 * 1024;
        ToolOutcome outcome = ListFilesTool().run({{"path", "many"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QCOMPARE(q(outcome.output).count('\n'), 2001);
        QVERIFY(outcome.output.ends_with(
            "many/f11999\n[listing stopped at 2000 entries; list a subdirectory or use a smaller depth]\n"));

        m_outputLimit = 100;
        outcome = ListFilesTool().run({{"path", "many"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QVERIFY(outcome.output.starts_with("many/f10000\nmany/f10001\n"));
        QVERIFY2(q(outcome.output).contains("\n[output limit of 100 bytes reached"), outcome.output.c_str());
        QVERIFY(outcome.output.size() < 200);
    }

    // ---- search

    void search_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("output");

        QTest::newRow("sorted by file then line")
            << R"({"pattern":"foo"})"
            << "a.cpp:2: foo\na.cpp:3: foo again\nb.h:1: bar foo\nsub/c.cpp:1: xfoo\n";
        QTest::newRow("glob on names") << R"({"pattern":"foo","glob":"*.cpp"})"
                                       << "a.cpp:2: foo\na.cpp:3: foo again\nsub/c.cpp:1: xfoo\n";
        QTest::newRow("under a directory") << R"({"pattern":"foo","path":"sub"})"
                                           << "sub/c.cpp:1: xfoo\n";
        QTest::newRow("one file") << R"({"pattern":"foo","path":"b.h"})"
                                  << "b.h:1: bar foo\n";
        QTest::newRow("one file, absolute") << R"({"pattern":"foo","path":"/workspace/b.h"})"
                                            << "b.h:1: bar foo\n";
        QTest::newRow("anchors") << R"({"pattern":"^fo+$"})"
                                 << "a.cpp:2: foo\n";
        QTest::newRow("alternation and classes") << R"({"pattern":"^(int|bar) \\w+"})"
                                                 << "a.cpp:1: int main\nb.h:1: bar foo\n";
        QTest::newRow("carriage returns are not part of the line") << R"({"pattern":"dos$"})"
                                                                   << "crlf.txt:1: dos\n";
        QTest::newRow("no match") << R"({"pattern":"zzz"})"
                                  << "no matches for /zzz/ in .\n";
        QTest::newRow("no match with a glob") << R"({"pattern":"zzz","glob":"*.h"})"
                                              << "no matches for /zzz/ in . (files named *.h)\n";
        QTest::newRow("skips .git, binary files and symlinks") << R"({"pattern":"hidden"})"
                                                               << "no matches for /hidden/ in .\n";
    }
    void search() {
        QFETCH(QString, arguments);
        QFETCH(QString, output);
        fs::remove_all(m_workspace);
        writeFile(ws("a.cpp"), "int main\nfoo\nfoo again\n");
        writeFile(ws("b.h"), "bar foo\n");
        writeFile(ws("sub/c.cpp"), "xfoo\n");
        writeFile(ws("crlf.txt"), "dos\r\nunix\n");
        writeFile(ws(".git/config"), "foo hidden\n");
        writeFile(ws("bin.dat"), std::string("foo hidden\0", 11));
        writeFile(m_outside / "o.txt", "foo hidden\n");
        fs::create_directory_symlink("../outside", ws("link_out"));
        fs::create_symlink("../outside/o.txt", ws("link_o.txt"));
        fs::create_symlink("a.cpp", ws("link_a.cpp"));
        const ToolOutcome outcome = SearchTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(q(outcome.output), output);
        QVERIFY(!outcome.truncated);
    }

    void searchFailures_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");

        QTest::newRow("invalid regex") << "{\"pattern\":\"(\"}"
                                       << "search: invalid regex \"(\": ";
        QTest::newRow("empty pattern") << R"({"pattern":""})"
                                       << "search: pattern is empty";
        QTest::newRow("missing pattern") << R"({"path":"."})"
                                         << R"(search: missing required argument "pattern")";
        QTest::newRow("glob with a slash") << "{\"pattern\":\"a\",\"glob\":\"src/\x2a.cpp\"}"
                                           << "search: glob matches file names only (e.g. \"*.cpp\")";
        QTest::newRow("glob of the wrong type")
            << R"({"pattern":"a","glob":1})"
            << R"(search: argument "glob" must be a string, got the integer 1)";
        QTest::newRow("unknown argument")
            << R"({"pattern":"a","regex":true})"
            << R"(search: unknown argument "regex" (allowed: pattern, path, glob))";
        QTest::newRow("missing path") << R"({"pattern":"a","path":"nope"})"
                                      << "search: no such file or directory: nope";
        QTest::newRow("dotdot") << R"({"pattern":"secret","path":"../outside"})"
                                << "search: path \"../outside\" is outside";
        QTest::newRow("symlink out") << R"({"pattern":"secret","path":"link_out"})"
                                     << "search: path \"link_out\" is outside";
        QTest::newRow("one binary file") << R"({"pattern":"a","path":"bin.dat"})"
                                         << "search: bin.dat is a binary file";
    }
    void searchFailures() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        writeFile(ws("bin.dat"), std::string("a\0", 2));
        const ToolOutcome outcome = SearchTool().run(json::parse(arguments.toStdString()), env());
        QVERIFY(!outcome.ok);
        QVERIFY2(q(outcome.output).startsWith(message), outcome.output.c_str());
    }

    void searchCapsMatchesLinesAndFiles() {
        std::string many;
        for (int i = 0; i < 600; ++i)
            many += "match\n";
        writeFile(ws("many.txt"), many);
        m_outputLimit = 1024 * 1024;
        ToolOutcome outcome = SearchTool().run({{"pattern", "match"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QCOMPARE(q(outcome.output).count("many.txt:"), 500);
        QVERIFY(outcome.output.ends_with(
            "many.txt:500: match\n[stopped at 500 matches; narrow the pattern, path or glob]\n"));

        m_outputLimit = 64;
        outcome = SearchTool().run({{"pattern", "match"}}, env());
        QVERIFY(outcome.truncated);
        QVERIFY2(q(outcome.output).contains("\n[output limit of 64 bytes reached"), outcome.output.c_str());

        m_outputLimit = 16 * 1024;
        writeFile(ws("wide.txt"),
                  "needle " + std::string(5000, 'x') + " tail\n" + std::string(3000, 'y') + "needle\n");
        outcome = SearchTool().run({{"pattern", "needle"}, {"path", "wide.txt"}}, env());
        QVERIFY(outcome.ok);
        // Shown cut to a readable length; a match past the matched part of a long line is not found.
        QCOMPARE(q(outcome.output),
                 QString("wide.txt:1: needle %1 [... 5012 bytes]\n"
                         "[2 line(s) longer than 2048 bytes searched in their first 2048 bytes only]\n")
                     .arg(QString(293, 'x')));

        // A pattern that recurses once per character, over a very long line: matched on its start only,
        // so the stack holds (this crashed with the whole line under ASan).
        writeFile(ws("minified.js"), std::string(200000, 'a') + "\n");
        outcome = SearchTool().run({{"pattern", "(a|b)*c"}, {"path", "minified.js"}}, env());
        QVERIFY(outcome.ok);
        QVERIFY(
            outcome.output.starts_with("no matches for /(a|b)*c/ in minified.js\n[1 line(s) longer than"));

        writeFile(ws("big.txt"), std::string(SearchTool::kMaxFileBytes, 'a') + "\nneedle\n");
        outcome = SearchTool().run({{"pattern", "needle"}, {"glob", "big.txt"}}, env());
        QVERIFY(outcome.ok);
        QCOMPARE(q(outcome.output),
                 "no matches for /needle/ in . (files named big.txt)\n[1 file(s) over 4 MiB not searched]\n");
    }

    void searchStopsWhenAskedTo() {
        Cancellation cancellation;
        cancellation.request(StopRequest::Pause);
        ToolEnv stopped = env();
        stopped.cancellation = &cancellation;
        const ToolOutcome outcome = SearchTool().run({{"pattern", "one"}}, stopped);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);
        QVERIFY(q(outcome.output).contains("[search stopped: a stop was requested]"));
    }

    void toolsNeverThrowOnOddArguments_data() {
        QTest::addColumn<QString>("arguments");
        QTest::newRow("string") << R"("file.txt")";
        QTest::newRow("number") << "5";
        QTest::newRow("nested object path") << R"({"path":{"a":1}})";
        QTest::newRow("huge number") << R"({"path":"file.txt","offset":1e300,"depth":1e300})";
    }
    void toolsNeverThrowOnOddArguments() {
        QFETCH(QString, arguments);
        const json args = json::parse(arguments.toStdString());
        std::vector<std::unique_ptr<Tool>> tools;
        tools.push_back(std::make_unique<ReadFileTool>());
        tools.push_back(std::make_unique<WriteFileTool>());
        tools.push_back(std::make_unique<EditFileTool>());
        tools.push_back(std::make_unique<ListFilesTool>());
        tools.push_back(std::make_unique<SearchTool>());
        for (const auto& tool : tools) {
            const ToolOutcome outcome = tool->run(args, env());
            QVERIFY(!outcome.ok);
            QCOMPARE(tool->contentKey(args, env()), std::nullopt);
        }
    }
};

QTEST_GUILESS_MAIN(TestFileTools)
#include "tst_file_tools.moc"
