// The loop with a workspace's skills (TaskRun, with a listed model in place of a real one): the system prompt
// the model receives lists each skill's name and description and the skill tool is offered; the tool loads a
// skill's instructions and one of its files and refuses a path with "..", an absolute one and a symlink out
// of the folder; a skill written into the workspace by a command in one step is in the prompt and loadable at
// the next; a malformed skill is a warning and the others load; no skill, or a tools setting without skill:
// no section, no tool; a sub-agent (an explorer, read-only) has the skills too; a task resumed from its
// checkpoint is told the skills there are then. The log lines are checked as
// events (log_format json).

#include "agent_core/loop/Agent.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "common/FileText.h"
#include "tests/support/AgentLoopDoubles.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
namespace fs = std::filesystem;
using nlohmann::json;
using test::CollectingSink;
using test::ListedLlm;
using test::calling;
using test::finishing;

namespace {

bool offers(const protocol::LlmChatParams& asked, const std::string& name) {
    return std::any_of(asked.tools.begin(), asked.tools.end(),
                       [&](const auto& tool) { return tool.name == name; });
}

QString systemPrompt(const protocol::LlmChatParams& asked) {
    if (asked.messages.empty() || asked.messages.front().role != "system")
        return {};
    return QString::fromStdString(asked.messages.front().content);
}

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    QVERIFY(writeFileText(path, text));
}

// A model for a task and its sub-agents: each answers from its own list (LlmChatParams::agent), whichever
// thread asks.
class AgentsLlm : public agent::Llm {
public:
    std::map<std::string, std::deque<protocol::LlmChatResult>> replies; // by agent, "" the task's own
    std::map<std::string, std::vector<protocol::LlmChatParams>> asked;
    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params,
                                         std::chrono::steady_clock::time_point,
                                         const agent::Cancellation&) override {
        std::lock_guard lock(m_mutex);
        const std::string agent = params.agent.value_or("");
        asked[agent].push_back(params);
        auto& list = replies[agent];
        if (list.empty())
            return makeError(ErrorCode::System, "no reply left for \"" + agent + "\"");
        auto reply = list.front();
        list.pop_front();
        return reply;
    }

private:
    std::mutex m_mutex;
};

struct Ran {
    TaskOutcome outcome;
    CollectingSink sink;
    std::vector<protocol::LlmChatParams> asked;

    const json* resultOf(const std::string& id) const {
        for (const auto& event : sink.events)
            if (event.type == et::kToolResult && event.data.value("id", "") == id)
                return &event.data;
        return nullptr;
    }
    QString outputOf(const std::string& id) const {
        const json* data = resultOf(id);
        return data ? QString::fromStdString(data->value("output", "")) : "(no result)";
    }
    bool failed(const std::string& id) const {
        const json* data = resultOf(id);
        return data && data->contains("exit_code") && (*data)["exit_code"].is_number_integer() &&
               (*data)["exit_code"].get<int>() != 0;
    }
    QStringList logs(protocol::LogLevel level) const {
        QStringList out;
        for (const auto& event : sink.ofType(et::kLog))
            if (auto log = protocol::LogData::fromJson(event.data); log && log->level == level)
                out << QString::fromStdString(log->message);
        return out;
    }
};

} // namespace

class TestAgentSkills : public QObject {
    Q_OBJECT

    std::unique_ptr<Ran> run(const fs::path& workspace, std::deque<protocol::LlmChatResult> replies,
                             json overrides = json::object()) {
        overrides["log_format"] = "json"; // log lines as events
        overrides["memory_backend"] = "in-memory";
        auto agent = createAgent({}, overrides);
        if (!agent)
            qFatal("%s", agent.error().message.c_str());
        auto llm = std::make_unique<ListedLlm>();
        llm->replies = std::move(replies);
        ListedLlm* model = llm.get();
        (*agent)->setModel(std::move(llm));
        auto ran = std::make_unique<Ran>();
        EventLog events(ran->sink);
        Cancellation cancellation;
        ran->outcome = (*agent)->run({workspace.string(), std::nullopt, std::nullopt}, "t", "convert the PDF",
                                     events, cancellation);
        ran->asked = model->asked;
        return ran;
    }

    static std::string skillMd(const std::string& name, const std::string& description,
                               const std::string& body) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
    }

private slots:
    void skillsAreOfferedLoadedAndPickedUpMidTask() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = fs::canonical(dir.path().toStdString());
        const fs::path workspace = root / "ws";
        const fs::path pdf = workspace / ".claude/skills/pdf";
        write(pdf / "SKILL.md", skillMd("pdf", "Extract text and tables from PDF files.",
                                        "# PDF\nRun scripts/extract.py, then read reference.md.\n"));
        write(pdf / "reference.md", "pdftotext -layout in.pdf out.txt\n");
        write(root / "outside/secret.txt", "the secret\n");
        fs::create_symlink(root / "outside/secret.txt", pdf / "escape.txt");
        write(workspace / ".agents/skills/bad/SKILL.md", "---\nname: Bad Name\ndescription: x\n---\n");
        const std::string newSkill =
            "mkdir -p .claude/skills/new-one && printf '%s\\n' '---' 'name: new-one' "
            "'description: Added while the task ran.' '---' 'New instructions.' > "
            ".claude/skills/new-one/SKILL.md";

        const auto ran =
            run(workspace, {calling("c1", "skill", {{"name", "pdf"}}),
                            calling("c2", "skill", {{"name", "pdf"}, {"file", "reference.md"}}),
                            calling("c3", "skill", {{"name", "pdf"}, {"file", "../bad/SKILL.md"}}),
                            calling("c4", "skill", {{"name", "pdf"}, {"file", "/etc/passwd"}}),
                            calling("c5", "skill", {{"name", "pdf"}, {"file", "escape.txt"}}),
                            calling("c6", "shell", {{"command", newSkill}}),
                            calling("c7", "skill", {{"name", "new-one"}}), finishing()});
        QCOMPARE(int(ran->outcome.reason), int(ExitReason::Finished));
        QCOMPARE(ran->asked.size(), std::size_t(8));

        // The prompt lists the skills there are, and the tool is offered.
        const QString first = systemPrompt(ran->asked[0]);
        QVERIFY2(first.contains("\n\n# Skills\n"), qPrintable(first));
        QVERIFY2(first.contains("\n- pdf: Extract text and tables from PDF files."), qPrintable(first));
        QVERIFY(!first.contains("new-one"));
        QVERIFY(!first.contains("Bad Name"));
        QVERIFY(offers(ran->asked[0], "skill"));

        // Loaded: the instructions without the front matter, the folder and its files; then a file.
        QVERIFY2(ran->outputOf("c1").contains("# PDF\nRun scripts/extract.py, then read reference.md."),
                 qPrintable(ran->outputOf("c1")));
        QVERIFY(!ran->outputOf("c1").contains("description:"));
        QVERIFY(ran->outputOf("c1").contains("Its folder is " + QString::fromStdString(pdf.string())));
        QVERIFY(ran->outputOf("c1").contains("- reference.md"));
        QCOMPARE(ran->outputOf("c2"), QString("pdftotext -layout in.pdf out.txt\n"));

        // Refused: "..", an absolute path, a symlink out of the folder.
        QVERIFY(ran->failed("c3"));
        QVERIFY2(ran->outputOf("c3").contains("file may not contain \"..\""),
                 qPrintable(ran->outputOf("c3")));
        QVERIFY(ran->failed("c4"));
        QVERIFY2(ran->outputOf("c4").contains("not an absolute one"), qPrintable(ran->outputOf("c4")));
        QVERIFY(ran->failed("c5"));
        QVERIFY2(ran->outputOf("c5").contains("escape.txt leads out of the skill's folder"),
                 qPrintable(ran->outputOf("c5")));
        QVERIFY(!ran->outputOf("c5").contains("the secret"));

        // The skill the command wrote is in the next step's prompt, and loads.
        QVERIFY(!systemPrompt(ran->asked[5]).contains("new-one"));
        const QString after = systemPrompt(ran->asked[6]);
        QVERIFY2(after.contains("\n- new-one: Added while the task ran."), qPrintable(after));
        QVERIFY(after.contains("\n- pdf: Extract text"));
        QVERIFY2(ran->outputOf("c7").contains("New instructions."), qPrintable(ran->outputOf("c7")));

        // What was offered, what changed, what was skipped.
        const QStringList info = ran->logs(protocol::LogLevel::Info);
        QVERIFY2(info.contains("skills offered: pdf"), qPrintable(info.join("\n")));
        QVERIFY2(info.contains("skills changed: added new-one"), qPrintable(info.join("\n")));
        const QString warnings = ran->logs(protocol::LogLevel::Warn).join("\n");
        QVERIFY2(warnings.contains(
                     "skill .agents/skills/bad/SKILL.md skipped: \"name\" must be lowercase letters, "
                     "digits and hyphens, got \"Bad Name\""),
                 qPrintable(warnings));
        QCOMPARE(warnings.count("Bad Name"), 1); // once, not at every step

        // Using a skill is its tool_call and tool_result.
        const auto calls = ran->sink.ofType(et::kToolCall);
        QCOMPARE(std::count_if(
                     calls.begin(), calls.end(),
                     [](const auto& event) { return event.tool == std::optional<std::string>("skill"); }),
                 6);
    }

    void theFirstSkillBringsTheToolAtTheNextStep() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path workspace = fs::canonical(dir.path().toStdString());
        const std::string newSkill =
            "mkdir -p .claude/skills/new-one && printf '%s\\n' '---' 'name: new-one' "
            "'description: The first skill.' '---' 'First instructions.' > .claude/skills/new-one/SKILL.md";
        const auto ran = run(workspace, {calling("c1", "shell", {{"command", newSkill}}),
                                         calling("c2", "skill", {{"name", "new-one"}}), finishing()});
        QCOMPARE(int(ran->outcome.reason), int(ExitReason::Finished));
        QVERIFY(!offers(ran->asked[0], "skill"));
        QVERIFY(!systemPrompt(ran->asked[0]).contains("# Skills"));
        QVERIFY(offers(ran->asked[1], "skill"));
        QVERIFY(systemPrompt(ran->asked[1]).contains("\n- new-one: The first skill."));
        QVERIFY2(ran->outputOf("c2").contains("First instructions."), qPrintable(ran->outputOf("c2")));
        QVERIFY(ran->logs(protocol::LogLevel::Info).contains("skills changed: added new-one"));
    }

    void anExplorerSubAgentHasTheSkillsToo() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path workspace = fs::canonical(dir.path().toStdString());
        write(workspace / ".claude/skills/pdf/SKILL.md", skillMd("pdf", "PDFs.", "Use pdftotext.\n"));
        auto agent = createAgent({"team"}, {{"log_format", "json"}, {"memory_backend", "in-memory"}});
        QVERIFY(agent);
        auto llm = std::make_unique<AgentsLlm>();
        llm->replies[""] = {
            calling("m1", "spawn_agent", {{"brief", "load the pdf skill"}, {"role", "explorer"}}),
            calling("m2", "wait_agents", json::object()), finishing()};
        llm->replies["agent-1"] = {calling("s1", "skill", {{"name", "pdf"}}),
                                   calling("s2", "finish", {{"summary", "loaded"}})};
        AgentsLlm* model = llm.get();
        (*agent)->setModel(std::move(llm));
        Ran ran;
        EventLog events(ran.sink);
        Cancellation cancellation;
        ran.outcome = (*agent)->run({workspace.string(), std::nullopt, std::nullopt}, "t", "use a helper",
                                    events, cancellation);
        QCOMPARE(int(ran.outcome.reason), int(ExitReason::Finished));
        QCOMPARE(model->asked["agent-1"].size(), std::size_t(2));
        const auto& first = model->asked["agent-1"][0];
        QVERIFY(offers(first, "skill"));
        QVERIFY(!offers(first, "write_file")); // an explorer: read-only tools
        QVERIFY2(systemPrompt(first).contains("\n- pdf: PDFs."), qPrintable(systemPrompt(first)));
        QVERIFY2(ran.outputOf("agent-1_s1").contains("Use pdftotext."),
                 qPrintable(ran.outputOf("agent-1_s1")));
        const auto logs = ran.sink.ofType(et::kLog);
        QVERIFY(std::any_of(logs.begin(), logs.end(), [](const protocol::Event& event) {
            return event.agent == std::optional<std::string>("agent-1") &&
                   event.data.value("message", "") == "skills offered: pdf";
        }));
    }

    void aResumedTaskIsToldTheSkillsThereAreNow() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = fs::canonical(dir.path().toStdString());
        const fs::path workspace = root / "ws";
        const fs::path state = root / "state";
        fs::create_directories(state);
        write(workspace / ".claude/skills/pdf/SKILL.md", skillMd("pdf", "PDFs.", "Use pdftotext.\n"));
        auto runOnce = [&](std::deque<protocol::LlmChatResult> replies, bool pauseAfterFirstResult) {
            auto agent = createAgent({}, {{"log_format", "json"}, {"memory_backend", "in-memory"}});
            if (!agent)
                qFatal("%s", agent.error().message.c_str());
            auto llm = std::make_unique<ListedLlm>();
            llm->replies = std::move(replies);
            ListedLlm* model = llm.get();
            (*agent)->setModel(std::move(llm));
            auto ran = std::make_unique<Ran>();
            Cancellation cancellation;
            if (pauseAfterFirstResult)
                ran->sink.onEvent = [&cancellation](const protocol::Event& event) {
                    if (event.type == et::kToolResult)
                        cancellation.request(StopRequest::Pause);
                };
            EventLog events(ran->sink);
            ran->outcome = (*agent)->run({workspace.string(), state, std::nullopt}, "t", "convert", events,
                                         cancellation);
            ran->asked = model->asked;
            return ran;
        };
        const auto paused = runOnce({calling("c1", "shell", {{"command", "true"}}), finishing()}, true);
        QCOMPARE(int(paused->outcome.reason), int(ExitReason::Paused));

        write(workspace / ".claude/skills/csv/SKILL.md", skillMd("csv", "CSVs.", "Use csvkit.\n"));
        const auto resumed = runOnce({calling("c2", "skill", {{"name", "csv"}}), finishing()}, false);
        QCOMPARE(int(resumed->outcome.reason), int(ExitReason::Finished));
        const QString prompt = systemPrompt(resumed->asked.at(0));
        QVERIFY2(prompt.contains("\n- csv: CSVs.\n- pdf: PDFs."), qPrintable(prompt));
        QCOMPARE(prompt.count("# Skills"), 1);
        QVERIFY2(resumed->outputOf("c2").contains("Use csvkit."), qPrintable(resumed->outputOf("c2")));
        QVERIFY(resumed->logs(protocol::LogLevel::Info).contains("skills offered: csv, pdf"));
    }

    void noSkillsNoSectionNoTool() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto ran = run(fs::canonical(dir.path().toStdString()), {finishing()});
        QCOMPARE(int(ran->outcome.reason), int(ExitReason::Finished));
        QVERIFY(!offers(ran->asked[0], "skill"));
        QVERIFY(!systemPrompt(ran->asked[0]).contains("# Skills"));
        QVERIFY(!ran->logs(protocol::LogLevel::Info).join("\n").contains("skills"));
    }

    void aToolsSettingWithoutSkillLooksForNone() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path workspace = fs::canonical(dir.path().toStdString());
        write(workspace / ".warren/skills/pdf/SKILL.md", skillMd("pdf", "PDFs.", "Body.\n"));
        const auto ran = run(workspace, {calling("c1", "skill", {{"name", "pdf"}}), finishing()},
                             {{"tools", {"shell", "read_file", "finish"}}});
        QVERIFY(!offers(ran->asked[0], "skill"));
        QVERIFY(!systemPrompt(ran->asked[0]).contains("# Skills"));
        QVERIFY(ran->failed("c1"));
        QVERIFY2(ran->outputOf("c1").contains("no tool \"skill\""), qPrintable(ran->outputOf("c1")));
        QVERIFY(!ran->logs(protocol::LogLevel::Info).join("\n").contains("skills offered"));
    }
};

QTEST_GUILESS_MAIN(TestAgentSkills)
#include "tst_agent_skills.moc"
