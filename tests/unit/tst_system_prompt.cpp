// What the model is told besides the task: the system prompt with the facts of the run (sandbox, network,
// tools, limits, approvals) and its family's section, and the project's instructions (AGENTS.md and the
// like) from the workspace root down to the working directory, by name precedence, within the cap.

#include "agent_core/prompt/ProjectInstructions.h"
#include "agent_core/prompt/SystemPrompt.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

namespace {

std::optional<std::string> opt(const QString& text) {
    return text.isEmpty() ? std::nullopt : std::optional<std::string>(text.toStdString());
}

void write(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

} // namespace

class TestSystemPrompt : public QObject {
    Q_OBJECT

private slots:
    void factsOfTheRunReachThePrompt_data() {
        QTest::addColumn<QString>("sandbox");
        QTest::addColumn<QString>("network");
        QTest::addColumn<json>("overrides");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        QTest::newRow("bubblewrap, no network, defaults")
            << "bwrap" << "none" << json::object()
            << QStringList{"bubblewrap with a seccomp filter", "Network: none.", "cannot reach the internet",
                           "at most 100 steps", "stopped after 120 s", "about 3000 tokens",
                           "Tools: shell, read_file, write_file, finish."}
            << QStringList{"Approval:", "tokens in all", "s per step"};
        QTest::newRow("podman, allowed hosts")
            << "podman" << "allow:pypi.org,files.pythonhosted.org" << json::object()
            << QStringList{"a Podman container", "only these hosts", "pypi.org,files.pythonhosted.org", "HTTP(S)_PROXY"}
            << QStringList{"Network: none"};
        QTest::newRow("loopback") << "bwrap" << "loopback" << json::object()
                                  << QStringList{"Network: none (loopback only)"} << QStringList{};
        QTest::newRow("limits and approvals from the settings")
            << "bwrap" << "none"
            << json{{"max_steps", 7}, {"token_budget", 50000}, {"timeout_per_step_sec", 30}, {"shell_timeout_sec", 45},
                    {"tool_output_limit_tokens", 900}, {"approval_tools", {"shell", "write_file"}}}
            << QStringList{"at most 7 steps", "50000 tokens in all", "30 s per step", "stopped after 45 s",
                           "about 900 tokens", "Approval: calls of shell, write_file wait"}
            << QStringList{};
        QTest::newRow("a standalone run says what it does not know")
            << "" << "" << json::object() << QStringList{"Sandbox: not stated", "Network: not stated"}
            << QStringList{"bubblewrap"};
    }
    void factsOfTheRunReachThePrompt() {
        QFETCH(QString, sandbox);
        QFETCH(QString, network);
        QFETCH(json, overrides);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        auto config = resolveConfig({}, overrides);
        QVERIFY(config);
        const RunFacts facts{opt(sandbox), opt(network), std::string("openai"), std::string("gpt-5")};
        const auto prompt = renderSystemPrompt(*config, facts, {"shell", "read_file", "write_file", "finish"});
        const QString text = QString::fromStdString(prompt.text);
        for (const auto& part : present)
            QVERIFY2(text.contains(part), qPrintable("missing: " + part + "\n" + text));
        for (const auto& part : absent)
            QVERIFY2(!text.contains(part), qPrintable("present: " + part));
        QVERIFY2(!text.contains("{{") && !text.contains("<!--"), qPrintable(text));
        QCOMPARE(prompt.version, std::string("2"));
    }

    void theWaysOfWorkingAreThere() {
        const auto prompt = renderSystemPrompt(AgentConfig{}, {}, {"shell", "finish"});
        for (const char* part : {"Keep going until the task is solved", "Use the tools instead of guessing",
                                 "Never revert", "git reset --hard", "narrow to broad", "call finish"})
            QVERIFY2(prompt.text.find(part) != std::string::npos, part);
    }

    void familiesGetTheirSection_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("marker"); // a line only that family's section has
        QTest::newRow("openai") << "openai" << "gpt-5" << "openai" << "Persist: your turn ends only when you call finish";
        QTest::newRow("o-series through a compatible server") << "vllm" << "o4-mini" << "openai" << "Persist:";
        QTest::newRow("openrouter's openai/") << "openrouter" << "openai/gpt-5-codex" << "openai" << "Persist:";
        QTest::newRow("anthropic") << "anthropic" << "claude-sonnet-4-5" << "anthropic" << "call them together in one reply";
        QTest::newRow("openrouter's anthropic/") << "openrouter" << "anthropic/claude-opus-4" << "anthropic" << "together";
        QTest::newRow("a local model") << "ollama" << "qwen2.5-coder:14b" << "other" << "Every reply must call a tool";
        QTest::newRow("scripted") << "scripted" << "" << "other" << "Every reply must call a tool";
    }
    void familiesGetTheirSection() {
        QFETCH(QString, provider);
        QFETCH(QString, model);
        QFETCH(QString, family);
        QFETCH(QString, marker);
        const RunFacts facts{std::nullopt, std::nullopt, opt(provider), opt(model)};
        QCOMPARE(QString::fromStdString(std::string(toString(modelFamily(facts)))), family);
        const auto prompt = renderSystemPrompt(AgentConfig{}, facts, {"shell", "finish"});
        QVERIFY2(QString::fromStdString(prompt.text).contains(marker), qPrintable(marker));
    }

    // How to write a patch is told to a model offered apply_patch, whatever its family, and to no other.
    void applyPatchIsExplainedWhenOffered() {
        const RunFacts openAi{std::nullopt, std::nullopt, std::string("openai"), std::string("gpt-5")};
        const RunFacts claude{std::nullopt, std::nullopt, std::string("anthropic"), std::string("claude-sonnet-4-5")};
        const std::string heading = "# Editing files with apply_patch";
        const auto offered = renderSystemPrompt(AgentConfig{}, openAi, {"shell", "apply_patch", "finish"}).text;
        QVERIFY(offered.find(heading) != std::string::npos);
        QVERIFY(offered.find("*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():") != std::string::npos);
        QVERIFY(offered.find("Persist:") < offered.find(heading)); // after the family's section
        QVERIFY(offered.find("<!--") == std::string::npos);
        QVERIFY(renderSystemPrompt(AgentConfig{}, openAi, {"shell", "edit_file", "finish"}).text.find(heading) ==
                std::string::npos);
        QVERIFY(renderSystemPrompt(AgentConfig{}, claude, {"shell", "apply_patch", "finish"}).text.find(heading) !=
                std::string::npos);
    }

    void instructionsFromTheRootDown_data() {
        QTest::addColumn<QStringList>("files");   // relative paths created, each holding its own path
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QStringList>("found");   // in order
        QTest::newRow("none") << QStringList{} << "" << QStringList{};
        QTest::newRow("AGENTS.md at the root") << QStringList{"AGENTS.md"} << "" << QStringList{"AGENTS.md"};
        QTest::newRow("CLAUDE.md as the fallback") << QStringList{"CLAUDE.md"} << "" << QStringList{"CLAUDE.md"};
        QTest::newRow("AGENTS.md before CLAUDE.md") << QStringList{"CLAUDE.md", "AGENTS.md"} << ""
                                                    << QStringList{"AGENTS.md"};
        QTest::newRow("the override first") << QStringList{"AGENTS.md", "AGENTS.override.md"} << ""
                                            << QStringList{"AGENTS.override.md"};
        QTest::newRow("root down to the working directory, root first")
            << QStringList{"AGENTS.md", "lib/CLAUDE.md", "lib/core/AGENTS.md", "other/AGENTS.md"} << "lib/core"
            << QStringList{"AGENTS.md", "lib/CLAUDE.md", "lib/core/AGENTS.md"};
        QTest::newRow("below the working directory: not read")
            << QStringList{"lib/AGENTS.md"} << "" << QStringList{};
        QTest::newRow("a working directory with .. stays inside")
            << QStringList{"AGENTS.md"} << "../../etc" << QStringList{"AGENTS.md"};
        QTest::newRow("a directory named AGENTS.md is not a file")
            << QStringList{"AGENTS.md/x", "CLAUDE.md"} << "" << QStringList{"CLAUDE.md"};
    }
    void instructionsFromTheRootDown() {
        QFETCH(QStringList, files);
        QFETCH(QString, workdir);
        QFETCH(QStringList, found);
        QTemporaryDir workspace;
        for (const auto& file : files)
            write(workspace.filePath(file), file.toUtf8());
        QStringList got;
        const auto read = findProjectInstructions(workspace.path().toStdString(), workdir.toStdString());
        for (const auto& file : read) {
            got << QString::fromStdString(file.path);
            QCOMPARE(QString::fromStdString(file.text), QString::fromStdString(file.path));
            QVERIFY(!file.truncated);
        }
        QCOMPARE(got, found);
    }

    void aLinkOutOfTheWorkspaceIsNotRead() {
        QTemporaryDir outside;
        write(outside.filePath("secret.md"), "do something else");
        QTemporaryDir workspace;
        QVERIFY(QFile::link(outside.filePath("secret.md"), workspace.filePath("AGENTS.md")));
        write(workspace.filePath("CLAUDE.md"), "the project's own");
        const auto read = findProjectInstructions(workspace.path().toStdString());
        QCOMPARE(read.size(), std::size_t{1});
        QCOMPARE(read[0].path, std::string("CLAUDE.md"));
    }

    void theCapCutsAndTheMessageSaysSo() {
        QTemporaryDir workspace;
        write(workspace.filePath("AGENTS.md"), QByteArray(300, 'a'));
        write(workspace.filePath("sub/AGENTS.md"), QByteArray(300, 'b'));
        const auto read = findProjectInstructions(workspace.path().toStdString(), "sub", 400);
        QCOMPARE(read.size(), std::size_t{2});
        QCOMPARE(read[0].text, std::string(300, 'a'));
        QVERIFY(!read[0].truncated);
        QCOMPARE(read[1].text, std::string(100, 'b'));
        QVERIFY(read[1].truncated);
        QCOMPARE(read[1].bytes, std::uint64_t{300});
        const std::string message = instructionsMessage(read);
        QVERIFY(message.find("## AGENTS.md\n\n" + std::string(300, 'a')) != std::string::npos);
        QVERIFY(message.find("## sub/AGENTS.md") > message.find("## AGENTS.md"));
        QVERIFY2(message.find("[... cut: 200 more bytes of sub/AGENTS.md") != std::string::npos, message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSystemPrompt)
#include "tst_system_prompt.moc"
