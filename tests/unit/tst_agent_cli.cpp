// Where a CLI agent is installed and what of it the sandbox gets (locateCli), on real directory layouts: npm's
// global install (a link on PATH to the package's executable or launcher), a path the user names, and what is
// refused with a message naming what to install.

#include "app/tasks/AgentCli.h"

#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::control;
using protocol::AgentKind;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& bytes, bool executable = true) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    fs::permissions(path, executable ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write);
}

const std::string kElf = std::string("\x7f" "ELF", 4) + std::string(60, '\0');

#if defined(__aarch64__)
const char* const kTriple = "aarch64-unknown-linux-musl";
const char* const kPlatform = "codex-linux-arm64";
const char* const kClaudePlatform = "claude-code-linux-arm64";
#else
const char* const kTriple = "x86_64-unknown-linux-musl";
const char* const kPlatform = "codex-linux-x64";
const char* const kClaudePlatform = "claude-code-linux-x64";
#endif

} // namespace

class TestAgentCli : public QObject {
    Q_OBJECT

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        m_root = fs::path(m_dir->path().toStdString());
    }

    // npm -g: bin/claude links to the package's native executable, which is mounted alone.
    void claudeCodeFromPath() {
        const fs::path exe = m_root / "lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe";
        writeFile(exe, kElf);
        fs::create_directories(m_root / "bin");
        fs::create_symlink(exe, m_root / "bin/claude");
        auto found = locateCli(AgentKind::ClaudeCode, "", "relative/bin:" + (m_root / "empty").string() + ":" +
                                                              (m_root / "bin").string());
        QVERIFY2(found, found ? "" : found.error().message.c_str());
        QCOMPARE(found->source, fs::canonical(exe).string());
        QVERIFY(!found->directory);
        QCOMPARE(found->program, std::string("/opt/warren/cli/claude"));
        QVERIFY(found->pathDirs.empty());
    }

    // Installed without its install script (npm --ignore-scripts): bin/claude.exe is a stub that only says so,
    // and the executable is the platform package's beside it.
    void claudeCodeWithoutItsInstallScript() {
        const fs::path modules = m_root / "lib/node_modules";
        writeFile(modules / "@anthropic-ai/claude-code/bin/claude.exe", "#!/usr/bin/env node\n");
        const fs::path native = modules / "@anthropic-ai" / kClaudePlatform / "claude";
        writeFile(native, kElf);
        auto found = locateCli(AgentKind::ClaudeCode, (modules / "@anthropic-ai/claude-code/bin/claude.exe").string(), "");
        QVERIFY2(found, found ? "" : found.error().message.c_str());
        QCOMPARE(found->source, fs::canonical(native).string());
        QCOMPARE(found->program, std::string("/opt/warren/cli/claude"));
    }

    // npm -g: bin/codex links to the Node.js launcher; the platform package's vendor directory is mounted, so
    // the sandbox needs no Node.js, and its rg is on PATH.
    void codexFromItsLauncher() {
        const fs::path modules = m_root / "lib/node_modules";
        const fs::path launcher = modules / "@openai/codex/bin/codex.js";
        writeFile(launcher, "#!/usr/bin/env node\n");
        const fs::path vendor = modules / "@openai" / kPlatform / "vendor" / kTriple;
        writeFile(vendor / "bin/codex", kElf);
        writeFile(vendor / "codex-path/rg", kElf);
        fs::create_directories(m_root / "bin");
        fs::create_symlink(launcher, m_root / "bin/codex");
        auto found = locateCli(AgentKind::Codex, "", (m_root / "bin").string());
        QVERIFY2(found, found ? "" : found.error().message.c_str());
        QCOMPARE(found->source, fs::canonical(vendor).string());
        QVERIFY(found->directory);
        QCOMPARE(found->program, std::string("/opt/warren/cli/bin/codex"));
        QCOMPARE(found->pathDirs, std::vector<std::string>{"/opt/warren/cli/codex-path"});

        // Named by its executable, the same directory.
        auto named = locateCli(AgentKind::Codex, (vendor / "bin/codex").string(), "");
        QVERIFY(named);
        QVERIFY(*named == *found);
    }

    void codexAlone() {
        writeFile(m_root / "codex", kElf);
        auto found = locateCli(AgentKind::Codex, (m_root / "codex").string(), "");
        QVERIFY(found);
        QVERIFY(!found->directory);
        QCOMPARE(found->program, std::string("/opt/warren/cli/codex"));
    }

    void refusals_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("layout");   // what is made: "" nothing, "script", "plain", "launcher"
        QTest::addColumn<bool>("named");       // the path is given, not looked up on PATH
        QTest::addColumn<QString>("message");  // a part of the error
        QTest::newRow("claude not on PATH") << int(AgentKind::ClaudeCode) << "" << false
                                            << "npm install -g @anthropic-ai/claude-code";
        QTest::newRow("codex not on PATH") << int(AgentKind::Codex) << "" << false << "npm install -g @openai/codex";
        QTest::newRow("named path missing") << int(AgentKind::ClaudeCode) << "" << true << "is not an executable file";
        QTest::newRow("named file not executable") << int(AgentKind::ClaudeCode) << "plain" << true
                                                   << "is not an executable file";
        QTest::newRow("claude code 1, a script") << int(AgentKind::ClaudeCode) << "script" << true
                                                 << "Claude Code 2 or later";
        QTest::newRow("codex launcher without its executable") << int(AgentKind::Codex) << "launcher" << true
                                                               << "has no executable for this machine";
    }

    void refusals() {
        QFETCH(int, kind);
        QFETCH(QString, layout);
        QFETCH(bool, named);
        QFETCH(QString, message);
        const fs::path file = m_root / "bin" / (kind == int(AgentKind::ClaudeCode) ? "claude" : "codex");
        if (layout == "script" || layout == "launcher")
            writeFile(file, "#!/usr/bin/env node\n");
        else if (layout == "plain")
            writeFile(file, kElf, false);
        fs::create_directories(m_root / "bin");
        auto found = locateCli(AgentKind(kind), named ? file.string() : "", named ? "" : (m_root / "bin").string());
        QVERIFY(!found);
        QVERIFY2(QString::fromStdString(found.error().message).contains(message), found.error().message.c_str());
    }

    void warrensOwnAgentIsNoCli() {
        constexpr auto kHost = sandbox::Backend::Bwrap;
        auto none = taskCli(AgentKind::Warren, "", {}, kHost);
        QVERIFY(none);
        QVERIFY(!*none);
        writeFile(m_root / "claude", kElf);
        auto configured = taskCli(AgentKind::ClaudeCode, "",
                                  {{AgentKind::ClaudeCode, (m_root / "claude").string()}}, kHost);
        QVERIFY(configured && *configured);
        QCOMPARE((*configured)->source, fs::canonical(m_root / "claude").string());
        // The task's own path wins over the face's.
        writeFile(m_root / "mine", kElf);
        auto own = taskCli(AgentKind::ClaudeCode, (m_root / "mine").string(),
                           {{AgentKind::ClaudeCode, (m_root / "claude").string()}}, kHost);
        QVERIFY(own && *own);
        QCOMPARE((*own)->source, fs::canonical(m_root / "mine").string());
        // A cluster's pod runs its image's CLI, by its command name: nothing of this host is looked at or
        // mounted.
        auto image = taskCli(AgentKind::Codex, (m_root / "mine").string(), {}, sandbox::Backend::Kubernetes);
        QVERIFY(image && *image);
        QCOMPARE(**image, (CliInstall{{}, false, "codex", {}}));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root;
};

QTEST_APPLESS_MAIN(TestAgentCli)
#include "tst_agent_cli.moc"
