// `warren`'s command line: every command with its options becomes one value, and every mistake an error
// that names the flag or argument, says what was expected, and suggests what was probably meant.

#include "app/cli/CliArguments.h"
#include "tests/support/StringLists.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

template <typename T> void putOptional(json& out, const char* key, const std::optional<T>& value) {
    if (value)
        out[key] = *value;
}
void putOptional(json& out, const char* key, const std::optional<warren::sandbox::Backend>& value) {
    if (value)
        out[key] = warren::sandbox::backendName(*value);
}

// The parsed arguments as JSON with only what differs from the defaults, so rows list what they set.
json describe(const CliArguments& arguments) {
    json out;
    putOptional(out, "data_dir", arguments.dataDir);
    putOptional(out, "remote", arguments.remote);
    if (arguments.noColor)
        out["no_color"] = true;
    std::visit(
        [&out](const auto& command) {
            using T = std::decay_t<decltype(command)>;
            if constexpr (std::is_same_v<T, WindowCommand>) {
                out["command"] = "window";
            } else if constexpr (std::is_same_v<T, HelpCommand>) {
                out["command"] = "help";
                if (!command.topic.empty())
                    out["topic"] = command.topic;
            } else if constexpr (std::is_same_v<T, VersionCommand>) {
                out["command"] = "version";
            } else if constexpr (std::is_same_v<T, RunCommand>) {
                out["command"] = "run";
                out["prompt"] = command.prompt;
                putOptional(out, "workspace", command.workspace);
                putOptional(out, "provider", command.provider);
                putOptional(out, "model", command.model);
                if (!command.presets.empty())
                    out["presets"] = command.presets;
                for (const auto& [key, value] : command.settings)
                    out["settings"].push_back(json::array({key, value}));
                putOptional(out, "backend", command.backend);
                putOptional(out, "image", command.image);
                if (command.agent)
                    out["agent"] = std::string(protocol::agentKindName(*command.agent));
                putOptional(out, "agent_path", command.agentPath);
                putOptional(out, "network", command.network);
                putOptional(out, "approve", command.approve);
                if (command.json)
                    out["json"] = true;
                putOptional(out, "timeout", command.timeoutSec);
                putOptional(out, "token_budget", command.tokenBudget);
            } else if constexpr (std::is_same_v<T, TasksCommand>) {
                out["command"] = "tasks";
                if (command.json)
                    out["json"] = true;
            } else if constexpr (std::is_same_v<T, ShowCommand>) {
                out["command"] = "show";
                out["task"] = command.taskId;
                if (command.json)
                    out["json"] = true;
            } else if constexpr (std::is_same_v<T, ResumeCommand>) {
                out["command"] = "resume";
                out["task"] = command.taskId;
                if (command.json)
                    out["json"] = true;
                putOptional(out, "approve", command.approve);
                putOptional(out, "backend", command.backend);
                putOptional(out, "image", command.image);
            } else if constexpr (std::is_same_v<T, ReplyCommand>) {
                out["command"] = "reply";
                out["task"] = command.taskId;
                out["message"] = command.message;
                if (command.json)
                    out["json"] = true;
                putOptional(out, "approve", command.approve);
            } else if constexpr (std::is_same_v<T, CancelCommand>) {
                out["command"] = "cancel";
                out["task"] = command.taskId;
            } else if constexpr (std::is_same_v<T, ExportCommand>) {
                out["command"] = "export";
                out["task"] = command.taskId;
                out["dir"] = command.directory;
            } else if constexpr (std::is_same_v<T, DoctorCommand>) {
                out["command"] = "doctor";
                if (command.json)
                    out["json"] = true;
            } else if constexpr (std::is_same_v<T, ApplyCommand>) {
                out["command"] = "apply";
                out["task"] = command.taskId;
                putOptional(out, "workspace", command.workspace);
                if (command.check)
                    out["check"] = true;
            } else if constexpr (std::is_same_v<T, MoveCommand>) {
                out["command"] = "move";
                out["task"] = command.taskId;
                out["to"] = command.to;
                putOptional(out, "workspace", command.workspace);
            } else if constexpr (std::is_same_v<T, DiffCommand>) {
                out["command"] = "diff";
                out["task"] = command.taskId;
                putOptional(out, "step", command.step);
            } else if constexpr (std::is_same_v<T, RewindCommand>) {
                out["command"] = "rewind";
                out["task"] = command.taskId;
                putOptional(out, "to_step", command.toStep);
                if (!command.paths.empty())
                    out["paths"] = command.paths;
                if (command.check)
                    out["check"] = true;
                if (command.yes)
                    out["yes"] = true;
                out["files"] = command.files;
                out["conversation"] = command.conversation;
                if (command.fork)
                    out["fork"] = true;
                if (!command.workspace.empty())
                    out["workspace"] = command.workspace;
            } else if constexpr (std::is_same_v<T, SecretsSetCommand>) {
                out["command"] = "secrets set";
                out["name"] = command.name;
            } else if constexpr (std::is_same_v<T, SecretsListCommand>) {
                out["command"] = "secrets list";
            } else {
                static_assert(std::is_same_v<T, SecretsDeleteCommand>);
                out["command"] = "secrets delete";
                out["name"] = command.name;
            }
        },
        arguments.command);
    return out;
}

QString q(const std::string& text) { return QString::fromStdString(text); }
QString j(const json& value) { return q(value.dump()); }

} // namespace

class TestCliArguments : public QObject {
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void errors_data();
    void errors();
    void usageMentionsEveryCommandAndRunOption_data();
    void usageMentionsEveryCommandAndRunOption();
    void commandUsage_data();
    void commandUsage();
};

// clang-format off
void TestCliArguments::parses_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected"); // describe() of the result

    QTest::newRow("no arguments: the window") << QStringList{} << j({{"command", "window"}});
    QTest::newRow("window with a data dir") << QStringList{"--data-dir", "/tmp/d"}
                                            << j({{"command", "window"}, {"data_dir", "/tmp/d"}});
    QTest::newRow("--help") << QStringList{"--help"} << j({{"command", "help"}});
    QTest::newRow("-h") << QStringList{"-h"} << j({{"command", "help"}});
    QTest::newRow("help") << QStringList{"help"} << j({{"command", "help"}});
    QTest::newRow("help run") << QStringList{"help", "run"} << j({{"command", "help"}, {"topic", "run"}});
    QTest::newRow("run --help") << QStringList{"run", "--help"} << j({{"command", "help"}, {"topic", "run"}});
    QTest::newRow("run --help with a bad flag still helps")
        << QStringList{"run", "-h", "x"} << j({{"command", "help"}, {"topic", "run"}});
    QTest::newRow("show -h") << QStringList{"show", "-h"} << j({{"command", "help"}, {"topic", "show"}});
    QTest::newRow("--version") << QStringList{"--version"} << j({{"command", "version"}});
    QTest::newRow("version") << QStringList{"version"} << j({{"command", "version"}});

    QTest::newRow("run: one word") << QStringList{"run", "hello"} << j({{"command", "run"}, {"prompt", "hello"}});
    QTest::newRow("run: words joined") << QStringList{"run", "fix", "the", "tests"}
                                       << j({{"command", "run"}, {"prompt", "fix the tests"}});
    QTest::newRow("run: quoted prompt") << QStringList{"run", "fix the tests"}
                                        << j({{"command", "run"}, {"prompt", "fix the tests"}});
    QTest::newRow("run: options between words")
        << QStringList{"run", "fix", "--json", "the", "--model", "m", "tests"}
        << j({{"command", "run"}, {"prompt", "fix the tests"}, {"model", "m"}, {"json", true}});
    QTest::newRow("run: after -- everything is prompt")
        << QStringList{"run", "--json", "--", "--model", "is", "-x"}
        << j({{"command", "run"}, {"prompt", "--model is -x"}, {"json", true}});
    QTest::newRow("run: a lone dash is a word") << QStringList{"run", "a", "-", "b"}
                                                << j({{"command", "run"}, {"prompt", "a - b"}});
    QTest::newRow("run: every option, separate values")
        << QStringList{"run", "--workspace", "/w", "--provider", "openai", "--model", "gpt-x", "--preset", "safe-mode",
                       "--set", "max_steps=20", "--backend", "docker", "--network", "loopback", "--approve", "auto",
                       "--json", "--timeout", "600", "--token-budget", "100000", "--data-dir", "/d", "--no-color",
                       "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"workspace", "/w"}, {"provider", "openai"}, {"model", "gpt-x"},
              {"presets", {"safe-mode"}}, {"settings", json::array({json::array({"max_steps", "20"})})}, {"backend", "docker"},
              {"network", "loopback"}, {"approve", "auto"}, {"json", true}, {"timeout", 600},
              {"token_budget", 100000}, {"data_dir", "/d"}, {"no_color", true}});
    QTest::newRow("run: every option, = values")
        << QStringList{"run", "--workspace=/w", "--provider=scripted:demo.json", "--model=m", "--preset=a,b",
                       "--set=k=v=w", "--backend=podman", "--network=none", "--approve=deny", "--timeout=1",
                       "--token-budget=5", "--data-dir=/d", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"workspace", "/w"}, {"provider", "scripted:demo.json"},
              {"model", "m"}, {"presets", {"a", "b"}}, {"settings", json::array({json::array({"k", "v=w"})})}, {"backend", "podman"},
              {"network", "none"}, {"approve", "deny"}, {"timeout", 1}, {"token_budget", 5}, {"data_dir", "/d"}});
    QTest::newRow("run: presets repeated and split, order kept")
        << QStringList{"run", "--preset", "safe-mode,local-light", "--preset", "production-log", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"presets", {"safe-mode", "local-light", "production-log"}}});
    QTest::newRow("run: settings repeated, order kept, empty value allowed")
        << QStringList{"run", "--set", "b=2", "--set", "a=1", "--set", "b=", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"settings", json::array({json::array({"b", "2"}), json::array({"a", "1"}), json::array({"b", ""})})}});
    QTest::newRow("run: network allow list")
        << QStringList{"run", "--network", "allow:pypi.org,files.pythonhosted.org", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"network", "allow:pypi.org,files.pythonhosted.org"}});
    QTest::newRow("run: last single value wins")
        << QStringList{"run", "--model", "a", "--model", "b", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"model", "b"}});
    QTest::newRow("run: value may start with a single dash")
        << QStringList{"run", "--workspace", "-odd", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"workspace", "-odd"}});
    QTest::newRow("run: = value may be an option-looking word")
        << QStringList{"run", "--model=--weird", "go"} << j({{"command", "run"}, {"prompt", "go"}, {"model", "--weird"}});
    QTest::newRow("run: relative paths kept as written")
        << QStringList{"run", "--workspace", "../repo", "--provider", "scripted:./s.json", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"workspace", "../repo"}, {"provider", "scripted:./s.json"}});

    QTest::newRow("global options before the command")
        << QStringList{"--data-dir", "/d", "--no-color", "tasks"}
        << j({{"command", "tasks"}, {"data_dir", "/d"}, {"no_color", true}});
    QTest::newRow("global --data-dir= before the command")
        << QStringList{"--data-dir=/d", "doctor"} << j({{"command", "doctor"}, {"data_dir", "/d"}});
    QTest::newRow("-- before the command") << QStringList{"--", "tasks"} << j({{"command", "tasks"}});

    QTest::newRow("tasks") << QStringList{"tasks"} << j({{"command", "tasks"}});
    QTest::newRow("tasks --json --data-dir") << QStringList{"tasks", "--json", "--data-dir", "/d"}
                                             << j({{"command", "tasks"}, {"json", true}, {"data_dir", "/d"}});
    QTest::newRow("show") << QStringList{"show", "t-1"} << j({{"command", "show"}, {"task", "t-1"}});
    QTest::newRow("show --json first") << QStringList{"show", "--json", "t-1"}
                                       << j({{"command", "show"}, {"task", "t-1"}, {"json", true}});
    QTest::newRow("resume") << QStringList{"resume", "t-1"} << j({{"command", "resume"}, {"task", "t-1"}});
    QTest::newRow("resume with options")
        << QStringList{"resume", "t-1", "--json", "--approve", "deny", "--data-dir=/d", "--no-color"}
        << j({{"command", "resume"}, {"task", "t-1"}, {"json", true}, {"approve", "deny"}, {"data_dir", "/d"},
              {"no_color", true}});
    QTest::newRow("reply") << QStringList{"reply", "t-1", "also", "the README"}
                           << j({{"command", "reply"}, {"task", "t-1"}, {"message", "also the README"}});
    QTest::newRow("reply with options")
        << QStringList{"reply", "--json", "t-1", "go on", "--approve", "auto", "--remote", "http://h:1"}
        << j({{"command", "reply"}, {"task", "t-1"}, {"message", "go on"}, {"json", true}, {"approve", "auto"},
              {"remote", "http://h:1"}});
    QTest::newRow("reply with dashes after --")
        << QStringList{"reply", "t-1", "--", "--force", "is fine"}
        << j({{"command", "reply"}, {"task", "t-1"}, {"message", "--force is fine"}});
    QTest::newRow("resume in another backend")
        << QStringList{"resume", "t-1", "--backend", "podman", "--image=localhost/warren-test:1"}
        << j({{"command", "resume"}, {"task", "t-1"}, {"backend", "podman"}, {"image", "localhost/warren-test:1"}});
    QTest::newRow("run in a container")
        << QStringList{"run", "--backend=podman", "--image", "localhost/warren-test:1", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"backend", "podman"}, {"image", "localhost/warren-test:1"}});
    QTest::newRow("run claude code from a path")
        << QStringList{"run", "--agent", "claude-code", "--agent-path=/opt/claude", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"agent", "claude-code"}, {"agent_path", "/opt/claude"}});
    QTest::newRow("cancel") << QStringList{"cancel", "t-1"} << j({{"command", "cancel"}, {"task", "t-1"}});
    QTest::newRow("cancel --data-dir") << QStringList{"cancel", "--data-dir", "/d", "t-1"}
                                       << j({{"command", "cancel"}, {"task", "t-1"}, {"data_dir", "/d"}});
    QTest::newRow("export") << QStringList{"export", "t-1", "out"}
                            << j({{"command", "export"}, {"task", "t-1"}, {"dir", "out"}});
    QTest::newRow("doctor") << QStringList{"doctor"} << j({{"command", "doctor"}});
    QTest::newRow("doctor --json") << QStringList{"doctor", "--json"} << j({{"command", "doctor"}, {"json", true}});
    QTest::newRow("run on a server")
        << QStringList{"run", "--remote", "https://warren.example:8420", "--json", "go"}
        << j({{"command", "run"}, {"prompt", "go"}, {"json", true}, {"remote", "https://warren.example:8420"}});
    QTest::newRow("tasks on a server") << QStringList{"tasks", "--remote=http://127.0.0.1:8420"}
                                       << j({{"command", "tasks"}, {"remote", "http://127.0.0.1:8420"}});
    QTest::newRow("show, cancel, export, resume take --remote")
        << QStringList{"resume", "t-1", "--remote", "http://h:1", "--approve", "auto"}
        << j({{"command", "resume"}, {"task", "t-1"}, {"approve", "auto"}, {"remote", "http://h:1"}});
    QTest::newRow("apply") << QStringList{"apply", "t-1", "--remote", "http://h:1"}
                           << j({{"command", "apply"}, {"task", "t-1"}, {"remote", "http://h:1"}});
    QTest::newRow("move") << QStringList{"move", "t-1", "--to", "https://h:1"}
                          << j({{"command", "move"}, {"task", "t-1"}, {"to", "https://h:1"}});
    QTest::newRow("move home") << QStringList{"move", "t-1", "--remote", "https://h:1", "--to", "local", "--workspace", "w"}
                               << j({{"command", "move"}, {"task", "t-1"}, {"to", "local"}, {"workspace", "w"},
                                     {"remote", "https://h:1"}});
    QTest::newRow("apply elsewhere, only checking")
        << QStringList{"apply", "--check", "t-1", "--workspace", "w", "--remote", "http://h:1"}
        << j({{"command", "apply"}, {"task", "t-1"}, {"workspace", "w"}, {"check", true}, {"remote", "http://h:1"}});
    QTest::newRow("secrets set") << QStringList{"secrets", "set", "openai"}
                                 << j({{"command", "secrets set"}, {"name", "openai"}});
    QTest::newRow("diff, the whole task") << QStringList{"diff", "t-1"} << j({{"command", "diff"}, {"task", "t-1"}});
    QTest::newRow("diff, one step") << QStringList{"diff", "t-1", "--step", "3"}
                                    << j({{"command", "diff"}, {"task", "t-1"}, {"step", 3}});
    QTest::newRow("rewind: the files by default")
        << QStringList{"rewind", "t-1", "--to-step", "2"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"to_step", 2}, {"files", true}, {"conversation", false}});
    QTest::newRow("rewind: only the conversation")
        << QStringList{"rewind", "t-1", "--to-step", "2", "--conversation", "--yes"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"to_step", 2}, {"yes", true}, {"files", false},
              {"conversation", true}});
    QTest::newRow("rewind: both")
        << QStringList{"rewind", "t-1", "--to-step", "2", "--conversation", "--files"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"to_step", 2}, {"files", true}, {"conversation", true}});
    QTest::newRow("rewind undone, two paths, checked")
        << QStringList{"rewind", "t-1", "--undo", "--path", "a", "--path", "b/c", "--check"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"paths", {"a", "b/c"}}, {"check", true}, {"files", true},
              {"conversation", false}});
    QTest::newRow("rewind forked")
        << QStringList{"rewind", "t-1", "--to-step", "3", "--fork"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"to_step", 3}, {"files", true}, {"conversation", false},
              {"fork", true}});
    QTest::newRow("rewind forked into a workspace")
        << QStringList{"rewind", "t-1", "--to-step", "3", "--fork", "--workspace", "/w/f"}
        << j({{"command", "rewind"}, {"task", "t-1"}, {"to_step", 3}, {"files", true}, {"conversation", false},
              {"fork", true}, {"workspace", "/w/f"}});
    QTest::newRow("secrets delete") << QStringList{"secrets", "delete", "openai", "--data-dir", "/d"}
                                    << j({{"command", "secrets delete"}, {"name", "openai"}, {"data_dir", "/d"}});
    QTest::newRow("secrets list") << QStringList{"secrets", "list", "--remote", "https://w.example"}
                                  << j({{"command", "secrets list"}, {"remote", "https://w.example"}});
}

void TestCliArguments::errors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");

    QTest::newRow("unknown command: typo") << QStringList{"rnu", "x"} << "unknown command 'rnu'; did you mean 'run'?";
    QTest::newRow("move without a server")
        << QStringList{"move", "t-1"}
        << "warren move: --to URL is missing: the warrend the task goes on at (or local, with --remote URL: home)";
    QTest::newRow("move home without a server")
        << QStringList{"move", "t-1", "--to", "local"}
        << "warren move: --to local needs --remote URL, the warrend the task comes from";
    QTest::newRow("move to a server from a server")
        << QStringList{"move", "t-1", "--to", "https://h:1", "--remote", "https://h:2"}
        << "warren move: --remote URL goes with --to local; a task of this machine goes to a warrend with --to URL";
    QTest::newRow("apply without a server")
        << QStringList{"apply", "t-1"}
        << "warren apply: --remote URL is missing: apply brings home the change of a task that ran on that server";
    QTest::newRow("rewind to nowhere") << QStringList{"rewind", "t-1"}
                                       << "warren rewind: say where to: --to-step N (before step N ran) or --undo "
                                          "(before the last rewind)";
    QTest::newRow("rewind to a step and undone") << QStringList{"rewind", "t-1", "--to-step", "1", "--undo"}
                                                 << "warren rewind: say where to: --to-step N (before step N ran) or "
                                                    "--undo (before the last rewind)";
    QTest::newRow("rewind to step 0") << QStringList{"rewind", "t-1", "--to-step", "0"}
                                      << "--to-step: expected a whole number of steps above 0, got '0'";
    QTest::newRow("the conversation undone")
        << QStringList{"rewind", "t-1", "--undo", "--conversation"}
        << "warren rewind: --undo takes back what the last rewind did (its files, its conversation or both); it "
           "takes no --files or --conversation";
    QTest::newRow("a fork narrowed")
        << QStringList{"rewind", "t-1", "--to-step", "2", "--fork", "--path", "a"}
        << "warren rewind: --fork takes the files and the conversation of one step into a new task, touching "
           "nothing else: --to-step N --fork [--workspace DIR], nothing more";
    QTest::newRow("a fork undone") << QStringList{"rewind", "t-1", "--undo", "--fork"}
                                   << "warren rewind: --fork takes the files and the conversation of one step into "
                                      "a new task, touching nothing else: --to-step N --fork [--workspace DIR], "
                                      "nothing more";
    QTest::newRow("a workspace without a fork")
        << QStringList{"rewind", "t-1", "--to-step", "2", "--workspace", "/w"}
        << "warren rewind: --workspace names a fork's workspace; add --fork";
    QTest::newRow("apply without a task") << QStringList{"apply", "--remote", "http://h:1"}
                                          << "warren apply: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("--remote is not doctor's")
        << QStringList{"doctor", "--remote", "http://h:1"}
        << "warren doctor: unknown option --remote (it is an option of run, tasks, show, resume, reply, cancel, export, apply, move and secrets)";
    QTest::newRow("unknown command: prefix") << QStringList{"doc"} << "unknown command 'doc'; did you mean 'doctor'?";
    QTest::newRow("unknown command: nothing close")
        << QStringList{"frobnicate"} << "unknown command 'frobnicate'; see 'warren --help'";
    QTest::newRow("a prompt without run")
        << QStringList{"fix the tests"} << "unknown command 'fix the tests'; to run a task: warren run \"fix the tests\"";
    QTest::newRow("unknown option: typo")
        << QStringList{"run", "--modle", "x", "go"} << "warren run: unknown option --modle; did you mean --model?";
    QTest::newRow("unknown option: prefix")
        << QStringList{"run", "--work", "x", "go"} << "warren run: unknown option --work; did you mean --workspace?";
    QTest::newRow("unknown option with = value")
        << QStringList{"run", "--netwrk=none", "go"} << "warren run: unknown option --netwrk; did you mean --network?";
    QTest::newRow("unknown option: nothing close")
        << QStringList{"run", "--xyzzy-plugh", "go"} << "warren run: unknown option --xyzzy-plugh; see 'warren run --help'";
    QTest::newRow("unknown short option") << QStringList{"run", "-v", "go"}
                                          << "warren run: unknown option -v; see 'warren run --help'";
    QTest::newRow("option of another command")
        << QStringList{"tasks", "--approve", "auto"} << "warren tasks: unknown option --approve (it is an option of run, resume and reply)";
    QTest::newRow("run option on cancel")
        << QStringList{"cancel", "--json", "t-1"}
        << "warren cancel: unknown option --json (it is an option of run, tasks, show, resume, reply and doctor)";
    QTest::newRow("unknown option before the command")
        << QStringList{"--dat-dir", "/d"} << "warren: unknown option --dat-dir; did you mean --data-dir?";
    QTest::newRow("command option before the command")
        << QStringList{"--json", "tasks"}
        << "warren: unknown option --json (it is an option of run, tasks, show, resume, reply and doctor)";

    QTest::newRow("missing value at the end") << QStringList{"run", "go", "--model"} << "--model: needs a value (--model NAME)";
    QTest::newRow("missing value: next is an option")
        << QStringList{"run", "--model", "--json", "go"} << "--model: needs a value (--model NAME), got the option --json";
    QTest::newRow("empty = value") << QStringList{"run", "--model=", "go"} << "--model: needs a value (--model NAME), got an empty one";
    QTest::newRow("empty separate value") << QStringList{"run", "--workspace", "", "go"}
                                          << "--workspace: needs a value (--workspace DIR), got an empty one";
    QTest::newRow("data dir without a value") << QStringList{"--data-dir"} << "--data-dir: needs a value (--data-dir DIR)";
    QTest::newRow("switch with a value") << QStringList{"run", "--json=yes", "go"} << "--json: takes no value, got 'yes'";
    QTest::newRow("no-color with a value") << QStringList{"--no-color=1"} << "--no-color: takes no value, got '1'";

    QTest::newRow("run without a prompt")
        << QStringList{"run"} << "warren run: PROMPT is missing: warren run [OPTION]... \"what the agent should do\"";
    QTest::newRow("run with options but no prompt")
        << QStringList{"run", "--json", "--model", "m"}
        << "warren run: PROMPT is missing: warren run [OPTION]... \"what the agent should do\"";
    QTest::newRow("run with a blank prompt")
        << QStringList{"run", "--", "  "} << "warren run: PROMPT is missing: warren run [OPTION]... \"what the agent should do\"";
    QTest::newRow("approve yes") << QStringList{"run", "--approve", "yes", "go"}
                                 << "--approve: expected ask, auto or deny, got 'yes'";
    QTest::newRow("resume approve yes") << QStringList{"resume", "t-1", "--approve=yes"}
                                        << "--approve: expected ask, auto or deny, got 'yes'";
    QTest::newRow("agent") << QStringList{"run", "--agent", "aider", "go"}
                           << "--agent: expected warren, claude-code or codex, got 'aider'";
    QTest::newRow("agent path empty") << QStringList{"run", "--agent-path=", "go"}
                                      << "--agent-path: needs a value (--agent-path PATH), got an empty one";
    QTest::newRow("agent path for warren's own agent")
        << QStringList{"run", "--agent", "warren", "--agent-path", "/x", "go"}
        << "--agent-path names a CLI's executable; Warren's own agent is built in: drop --agent-path or choose "
           "--agent claude-code or codex";
    QTest::newRow("backend") << QStringList{"run", "--backend", "lxc", "go"}
                             << "--backend: expected bwrap, docker, podman, kube or kubernetes, got 'lxc'";
    QTest::newRow("resume backend") << QStringList{"resume", "t-1", "--backend", "lxc"}
                                    << "--backend: expected bwrap, docker, podman, kube or kubernetes, got 'lxc'";
    QTest::newRow("image read as an option") << QStringList{"run", "--image=--privileged", "go"}
                                             << "--image: expected an image name such as debian:bookworm-slim, got "
                                                "'--privileged'";
    QTest::newRow("image with a space") << QStringList{"resume", "t-1", "--image", "a b"}
                                        << "--image: expected an image name such as debian:bookworm-slim, got 'a b'";
    QTest::newRow("network") << QStringList{"run", "--network", "all", "go"}
                             << "--network: expected none, loopback, allow:HOST[,HOST...], ask or ask:HOST[,HOST...], "
                                "got 'all'";
    QTest::newRow("network ask without hosts")
        << QStringList{"run", "--network", "ask:", "go"}
        << "--network: ask: needs hosts, as in ask:api.example.com,pypi.org; got 'ask:'";
    QTest::newRow("network allow without hosts")
        << QStringList{"run", "--network", "allow:", "go"}
        << "--network: allow: needs hosts, as in allow:api.example.com,pypi.org; got 'allow:'";
    QTest::newRow("network allow with an empty host")
        << QStringList{"run", "--network", "allow:a,,b", "go"}
        << "--network: allow: needs hosts, as in allow:api.example.com,pypi.org; got 'allow:a,,b'";
    QTest::newRow("network host with a space")
        << QStringList{"run", "--network", "allow:a b", "go"} << "--network: a host cannot contain spaces, got 'a b'";
    QTest::newRow("timeout zero") << QStringList{"run", "--timeout", "0", "go"}
                                  << "--timeout: expected a whole number of seconds above 0, got '0'";
    QTest::newRow("timeout negative") << QStringList{"run", "--timeout=-5", "go"}
                                      << "--timeout: expected a whole number of seconds above 0, got '-5'";
    QTest::newRow("timeout with a unit") << QStringList{"run", "--timeout", "10s", "go"}
                                         << "--timeout: expected a whole number of seconds above 0, got '10s'";
    QTest::newRow("timeout fraction") << QStringList{"run", "--timeout", "1.5", "go"}
                                      << "--timeout: expected a whole number of seconds above 0, got '1.5'";
    QTest::newRow("timeout plus sign") << QStringList{"run", "--timeout", "+5", "go"}
                                       << "--timeout: expected a whole number of seconds above 0, got '+5'";
    QTest::newRow("timeout overflow") << QStringList{"run", "--timeout", "99999999999999999999999", "go"}
                                      << "--timeout: expected a whole number of seconds above 0, got '99999999999999999999999'";
    QTest::newRow("token budget") << QStringList{"run", "--token-budget", "lots", "go"}
                                  << "--token-budget: expected a whole number of tokens above 0, got 'lots'";
    QTest::newRow("set without =") << QStringList{"run", "--set", "max_steps", "go"}
                                   << "--set: expected KEY=VALUE, got 'max_steps'";
    QTest::newRow("set with an empty key") << QStringList{"run", "--set", "=5", "go"}
                                           << "--set: the key before '=' is empty in '=5'";
    QTest::newRow("preset empty item") << QStringList{"run", "--preset", "a,,b", "go"}
                                       << "--preset: empty preset name in 'a,,b'";
    QTest::newRow("preset trailing comma") << QStringList{"run", "--preset", "a,", "go"}
                                           << "--preset: empty preset name in 'a,'";
    QTest::newRow("scripted provider without a file")
        << QStringList{"run", "--provider", "scripted:", "go"} << "--provider: scripted: needs a file, as in scripted:demo.json";

    QTest::newRow("show without a task") << QStringList{"show"} << "warren show: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("show with two tasks") << QStringList{"show", "t-1", "t-2"}
                                         << "warren show: unexpected argument 't-2' (usage: warren show TASK [--json])";
    QTest::newRow("resume without a task") << QStringList{"resume", "--json"}
                                           << "warren resume: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("reply without a task") << QStringList{"reply", "--json"}
                                          << "warren reply: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("reply without a message")
        << QStringList{"reply", "t-1", " "}
        << "warren reply: MESSAGE is missing: warren reply TASK \"what the agent should do next\"";
    QTest::newRow("cancel without a task") << QStringList{"cancel"} << "warren cancel: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("cancel with two tasks") << QStringList{"cancel", "a", "b"}
                                           << "warren cancel: unexpected argument 'b' (usage: warren cancel TASK)";
    QTest::newRow("export without a dir") << QStringList{"export", "t-1"} << "warren export: DIR is missing";
    QTest::newRow("export without anything") << QStringList{"export"}
                                             << "warren export: TASK is missing ('warren tasks' lists the task ids)";
    QTest::newRow("export with too much") << QStringList{"export", "t", "d", "e"}
                                          << "warren export: unexpected argument 'e' (usage: warren export TASK DIR)";
    QTest::newRow("tasks with a word") << QStringList{"tasks", "all"}
                                       << "warren tasks: unexpected argument 'all' (usage: warren tasks [--json])";
    QTest::newRow("doctor with a word") << QStringList{"doctor", "now"}
                                        << "warren doctor: unexpected argument 'now' (usage: warren doctor [--json])";
    QTest::newRow("version with a word") << QStringList{"version", "x"}
                                         << "warren version: unexpected argument 'x' (usage: warren version)";
    QTest::newRow("help with an unknown command") << QStringList{"help", "nope"} << "warren help: unknown command 'nope'";
    QTest::newRow("help with two commands") << QStringList{"help", "run", "show"}
                                            << "warren help: takes at most one COMMAND, got 'show'";

    QTest::newRow("secrets alone")
        << QStringList{"secrets"} << "warren secrets: expected set, delete or list (warren secrets set NAME reads the key from stdin)";
    QTest::newRow("secrets other")
        << QStringList{"secrets", "show"}
        << "warren secrets: expected set, delete or list, got 'show' (warren secrets set NAME reads the key from stdin)";
    QTest::newRow("secrets list with a name") << QStringList{"secrets", "list", "x"}
                                              << "warren secrets list: unexpected argument 'x'";
    QTest::newRow("secrets set a provider key remotely")
        << QStringList{"secrets", "set", "openai", "--remote", "https://w.example"}
        << "warren secrets set --remote: only a secret for hosts (--host) is kept on a server; its key for you is "
           "`warren secrets set remote`, without --remote";
    QTest::newRow("secrets set without a name")
        << QStringList{"secrets", "set"} << "warren secrets set: NAME is missing (the provider whose key it is)";
    QTest::newRow("secrets set with the key on the command line")
        << QStringList{"secrets", "set", "openai", "sk-123"}
        << "warren secrets set: takes only NAME; the key is read from stdin, never from the command line, where other "
           "users and the shell history would see it";
    QTest::newRow("secrets delete with extra")
        << QStringList{"secrets", "delete", "openai", "x"} << "warren secrets delete: unexpected argument 'x'";
    QTest::newRow("secrets set --json")
        << QStringList{"secrets", "set", "openai", "--json"}
        << "warren secrets: unknown option --json (it is an option of run, tasks, show, resume, reply and doctor)";
}
// clang-format on

void TestCliArguments::parses() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto parsed = parseCliArguments(toStd(args));
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
    QCOMPARE(j(describe(*parsed)), expected);
}

void TestCliArguments::errors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const auto parsed = parseCliArguments(toStd(args));
    QVERIFY2(!parsed.ok(), parsed.ok() ? j(describe(*parsed)).toUtf8().constData() : "");
    QCOMPARE(parsed.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(q(parsed.error().message), message);
}

void TestCliArguments::usageMentionsEveryCommandAndRunOption_data() {
    QTest::addColumn<QString>("word");
    for (const char* word : {"warren run", "warren tasks", "warren show TASK", "warren resume TASK", "warren reply TASK MESSAGE", "warren cancel TASK",
                             "warren export TASK DIR", "warren apply TASK --remote URL", "warren diff TASK [--step N]",
                             "warren rewind TASK --to-step N", "warren doctor", "warren secrets set|delete NAME", "--workspace DIR",
                             "--provider NAME", "--model NAME", "--preset P[,P...]", "--set KEY=VALUE",
                             "--backend NAME", "--network POLICY", "--approve MODE", "--json", "--timeout SECONDS",
                             "--token-budget N", "--remote URL", "--data-dir DIR", "--no-color", "--help", "2 usage error"})
        QTest::newRow(word) << QString::fromUtf8(word);
}

void TestCliArguments::usageMentionsEveryCommandAndRunOption() {
    QFETCH(QString, word);
    QVERIFY2(q(usageText()).contains(word), qPrintable(q(usageText())));
}

void TestCliArguments::commandUsage_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("mentions");
    QTest::addColumn<QStringList>("omits");
    QTest::newRow("run") << "run" << QStringList{"Usage: warren run", "--token-budget N", "--data-dir DIR"}
                         << QStringList{"warren tasks"};
    QTest::newRow("resume") << "resume"
                            << QStringList{"Usage: warren resume TASK", "--approve MODE", "--json", "--backend NAME",
                                           "--image IMAGE"}
                            << QStringList{"--model"};
    QTest::newRow("cancel") << "cancel" << QStringList{"Usage: warren cancel TASK", "--data-dir DIR"}
                            << QStringList{"--json"};
    QTest::newRow("unknown: the full text") << "nope" << QStringList{"warren run", "warren doctor"} << QStringList{};
    QTest::newRow("help: the full text") << "help" << QStringList{"warren run", "warren doctor"} << QStringList{};
}

void TestCliArguments::commandUsage() {
    QFETCH(QString, command);
    QFETCH(QStringList, mentions);
    QFETCH(QStringList, omits);
    const QString text = q(usageText(command.toStdString()));
    for (const QString& word : mentions)
        QVERIFY2(text.contains(word), qPrintable(word + " not in\n" + text));
    for (const QString& word : omits)
        QVERIFY2(!text.contains(word), qPrintable(word + " in\n" + text));
}

QTEST_APPLESS_MAIN(TestCliArguments)
#include "tst_cli_arguments.moc"
