// AgentConfig: defaults, the built-in presets (DESIGN §4) landing in the struct, composition order
// (defaults < presets in order < overrides), every validation error naming its key and source, --set
// parsing, and configToJson round-tripping through resolveConfig.

#include "agent_core/config/AgentConfig.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

namespace {

AgentConfig resolved(const std::vector<std::string>& presets, const json& overrides = json()) {
    auto config = resolveConfig(presets, overrides);
    if (!config) {
        qWarning("%s", config.error().message.c_str());
        return {};
    }
    return std::move(config).value();
}

QString errorOf(const std::vector<std::string>& presets, const json& overrides) {
    const auto config = resolveConfig(presets, overrides);
    return config ? QString("(no error)") : QString::fromStdString(config.error().message);
}

QString text(const json& value) {
    return QString::fromStdString(value.dump());
}

} // namespace

class TestAgentConfig : public QObject {
    Q_OBJECT

private slots:
    void defaults() {
        const auto config = resolveConfig({}, json());
        QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
        QVERIFY(config.value() == AgentConfig{});
        QCOMPARE(config->maxSteps, 100u);
        QCOMPARE(config->timeoutPerStepSec, 0u);
        QCOMPARE(config->tokenBudget, 0u);
        QCOMPARE(config->loopDetection, false);
        QCOMPARE(config->loopThreshold, 3u);
        QCOMPARE(config->memoryThresholdMb, 0u);
        QCOMPARE(config->maxMemoryMb, 0u);
        QCOMPARE(config->contextWindowLimit, 32000u);
        QCOMPARE(config->keepRecentMessages, 8u);
        QCOMPARE(config->compressHistory, false);
        QCOMPARE(config->tools, allToolNames());
        QCOMPARE(config->lazyTools, false);
        QCOMPARE(config->shellTimeoutSec, 120u);
        QCOMPARE(config->toolOutputLimitBytes, 16384u);
        QVERIFY(config->approvalTools.empty());
        QCOMPARE(config->executionCache, true);
        QVERIFY(config->memoryBackend == MemoryBackendKind::Filesystem);
        QCOMPARE(config->memoryDir, std::string("/memories"));
        QCOMPARE(config->memoryPrefix, std::string());
        QCOMPARE(config->autoSaveIntervalSec, 0u);
        QCOMPARE(config->semanticIndex, false);
        QVERIFY(config->logLevel == LogLevel::Info);
        QVERIFY(config->logFormat == LogFormat::Text);
        QVERIFY(config->hooks.empty());
        // An empty object means no overrides, like null.
        QVERIFY(resolved({}, json::object()) == AgentConfig{});
    }

    void toolNames() {
        QCOMPARE(allToolNames(), (std::vector<std::string>{"shell", "read_file", "write_file", "edit_file",
                                                           "apply_patch", "list_files", "search", "update_plan", "memory_save",
                                                           "memory_load", "memory_search", "skill",
                                                           "finish"}));
    }

    void presetNamesAreTheBuiltIns() {
        QCOMPARE(presetNames(),
                 (std::vector<std::string>{"local-light", "long-term-memory", "memory-optimized",
                                           "production-log", "safe-mode", "team"}));
    }

    void everyBuiltInPresetResolves() {
        for (const auto& name : presetNames()) {
            const auto config = resolveConfig({name}, json());
            QVERIFY2(config.ok(), (name + ": " + (config.ok() ? "" : config.error().message)).c_str());
        }
    }

    // Each preset changes exactly the keys DESIGN §4 gives it; every other key keeps its default.
    void presetChangesExactlyItsKeys_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<json>("changed");
        QTest::newRow("memory-optimized") << "memory-optimized"
                                          << json{{"max_memory_mb", 400},
                                                  {"memory_threshold_mb", 300},
                                                  {"lazy_tools", true},
                                                  {"context_window_limit", 8000}};
        QTest::newRow("production-log") << "production-log" << json{{"log_format", "json"}};
        QTest::newRow("long-term-memory") << "long-term-memory"
                                          << json{{"memory_backend", "host"},
                                                  {"auto_save_interval", 30},
                                                  {"compress_history", true},
                                                  {"semantic_index", true}};
        QTest::newRow("safe-mode") << "safe-mode"
                                   << json{{"max_steps", 50},
                                           {"memory_threshold_mb", 512},
                                           {"timeout_per_step_sec", 30},
                                           {"loop_detection", true},
                                           {"approval_tools", {"shell", "write_file", "edit_file", "apply_patch"}}};
        QTest::newRow("local-light")
            << "local-light"
            << json{{"memory_backend", "in-memory"},
                    {"lazy_tools", true},
                    {"tools", {"shell", "read_file", "write_file", "edit_file", "apply_patch", "list_files", "finish"}}};
    }

    void presetChangesExactlyItsKeys() {
        QFETCH(QString, preset);
        QFETCH(json, changed);
        auto expected = configToJson(AgentConfig{});
        expected.update(changed);
        QCOMPARE(text(configToJson(resolved({preset.toStdString()}))), text(expected));
    }

    // The same, read from the struct's fields rather than through configToJson.
    void presetsLandInTheStruct() {
        const auto memory = resolved({"memory-optimized"});
        QVERIFY(memory.memoryBackend == MemoryBackendKind::Filesystem);
        QCOMPARE(memory.maxMemoryMb, 400u);
        QCOMPARE(memory.memoryThresholdMb, 300u);
        QVERIFY(memory.memoryThresholdMb < memory.maxMemoryMb); // sheds before the hard limit
        QCOMPARE(memory.lazyTools, true);
        QCOMPARE(memory.contextWindowLimit, 8000u);

        const auto log = resolved({"production-log"});
        QVERIFY(log.logFormat == LogFormat::Json);
        QVERIFY(log.logLevel == LogLevel::Info);

        const auto longTerm = resolved({"long-term-memory"});
        QVERIFY(longTerm.memoryBackend == MemoryBackendKind::Host);
        QCOMPARE(longTerm.autoSaveIntervalSec, 30u);
        QCOMPARE(longTerm.compressHistory, true);
        QCOMPARE(longTerm.semanticIndex, true);

        const auto safe = resolved({"safe-mode"});
        QCOMPARE(safe.maxSteps, 50u);
        QCOMPARE(safe.memoryThresholdMb, 512u);
        QCOMPARE(safe.timeoutPerStepSec, 30u);
        QCOMPARE(safe.loopDetection, true);
        QCOMPARE(safe.approvalTools, (std::vector<std::string>{"shell", "write_file", "edit_file", "apply_patch"}));

        const auto light = resolved({"local-light"});
        QVERIFY(light.memoryBackend == MemoryBackendKind::InMemory);
        QVERIFY(light.logLevel == LogLevel::Info);
        QCOMPARE(light.lazyTools, true);
        QCOMPARE(light.tools, (std::vector<std::string>{"shell", "read_file", "write_file", "edit_file",
                                                        "apply_patch", "list_files", "finish"}));
    }

    void laterPresetsWin() {
        // Both set memory_threshold_mb: the later one's value stays, the earlier one's other keys too.
        const auto safeThenMemory = resolved({"safe-mode", "memory-optimized"});
        QCOMPARE(safeThenMemory.memoryThresholdMb, 300u);
        QCOMPARE(safeThenMemory.maxSteps, 50u);
        QCOMPARE(safeThenMemory.maxMemoryMb, 400u);
        const auto memoryThenSafe = resolved({"memory-optimized", "safe-mode"});
        QCOMPARE(memoryThenSafe.memoryThresholdMb, 512u);
        QCOMPARE(memoryThenSafe.maxMemoryMb, 400u);

        QVERIFY(resolved({"local-light", "memory-optimized"}).memoryBackend == MemoryBackendKind::Filesystem);
        QVERIFY(resolved({"memory-optimized", "local-light"}).memoryBackend == MemoryBackendKind::InMemory);
    }

    void overridesWinKeyByKey() {
        const auto config =
            resolved({"safe-mode"}, json{{"max_steps", 7}, {"approval_tools", json::array()}});
        QCOMPARE(config.maxSteps, 7u);
        QVERIFY(config.approvalTools.empty());
        // The preset's other keys stay.
        QCOMPARE(config.timeoutPerStepSec, 30u);
        QCOMPARE(config.memoryThresholdMb, 512u);
        QCOMPARE(config.loopDetection, true);
    }

    void finishIsAlwaysEnabled() {
        QCOMPARE(resolved({}, json{{"tools", json::array({"read_file"})}}).tools,
                 (std::vector<std::string>{"read_file", "finish"}));
        QCOMPARE(resolved({}, json{{"tools", json::array()}}).tools, (std::vector<std::string>{"finish"}));
        QCOMPARE(resolved({}, json{{"tools", {"finish", "shell"}}}).tools,
                 (std::vector<std::string>{"finish", "shell"}));
        // approval_tools is a plain list: nothing is added to it.
        QCOMPARE(resolved({}, json{{"approval_tools", json::array({"shell"})}}).approvalTools,
                 (std::vector<std::string>{"shell"}));
    }

    void hooksAreTheConfiguredOnes() {
        const auto config = resolved(
            {}, json{{"on_step", "make test"}, {"on_error", "notify-send failed"}, {"on_task_start", ""}});
        QCOMPARE(config.hooks, (std::map<std::string, std::string>{{"on_error", "notify-send failed"},
                                                                   {"on_step", "make test"}}));
        // "" is no hook: configToJson shows it as "", and reading that back adds nothing.
        auto out = configToJson(config);
        QCOMPARE(text(out["on_task_start"]), text(json("")));
        out["on_step"] = "";
        QCOMPARE(resolved({}, out).hooks,
                 (std::map<std::string, std::string>{{"on_error", "notify-send failed"}}));
        QCOMPARE(hookNames(), (std::vector<std::string>{"on_task_start", "on_step", "on_task_complete",
                                                        "on_low_memory", "on_error"}));
    }

    void enumsReadEveryName_data() {
        QTest::addColumn<json>("overrides");
        QTest::addColumn<QString>("key");
        for (const char* backend : {"in-memory", "filesystem", "host"})
            QTest::newRow(backend) << json{{"memory_backend", backend}} << "memory_backend";
        for (const char* level : {"debug", "info", "warn", "error"})
            QTest::newRow(level) << json{{"log_level", level}} << "log_level";
        for (const char* format : {"text", "json"})
            QTest::newRow(format) << json{{"log_format", format}} << "log_format";
    }

    void enumsReadEveryName() {
        QFETCH(json, overrides);
        QFETCH(QString, key);
        const auto config = resolveConfig({}, overrides);
        QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
        QCOMPARE(text(configToJson(config.value())[key.toStdString()]), text(overrides[key.toStdString()]));
    }

    void acceptsEdgeValues_data() {
        QTest::addColumn<json>("overrides");
        QTest::newRow("loop_threshold 2") << json{{"loop_threshold", 2}};
        QTest::newRow("context_window_limit 1000") << json{{"context_window_limit", 1000}};
        QTest::newRow("keep_recent_messages 2") << json{{"keep_recent_messages", 2}};
        QTest::newRow("shell_timeout_sec 1") << json{{"shell_timeout_sec", 1}};
        QTest::newRow("tool_output_limit_bytes 256") << json{{"tool_output_limit_bytes", 256}};
        QTest::newRow("max_steps 1") << json{{"max_steps", 1}};
        QTest::newRow("largest integer") << json{{"token_budget", std::numeric_limits<std::uint64_t>::max()}};
        QTest::newRow("memory_prefix empty") << json{{"memory_prefix", ""}};
        QTest::newRow("memory_prefix nested") << json{{"memory_prefix", "team-a/proj_1/v2.0"}};
        QTest::newRow("memory_dir root") << json{{"memory_dir", "/"}};
        QTest::newRow("empty approval list") << json{{"approval_tools", json::array()}};
    }

    void acceptsEdgeValues() {
        QFETCH(json, overrides);
        const auto config = resolveConfig({}, overrides);
        QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
        const auto out = configToJson(config.value());
        for (const auto& [key, value] : overrides.items())
            QCOMPARE(text(out[key]), text(value));
    }

    void refusesBadValues_data() {
        QTest::addColumn<json>("overrides");
        QTest::addColumn<QString>("message");
        QTest::newRow("max_agent_depth zero")
            << json{{"max_agent_depth", 0}} << "--set max_agent_depth: must be an integer >= 1, got 0";
        QTest::newRow("loop_threshold below 2")
            << json{{"loop_threshold", 1}} << "--set loop_threshold: must be an integer >= 2, got 1";
        QTest::newRow("max_steps zero")
            << json{{"max_steps", 0}} << "--set max_steps: must be an integer >= 1, got 0";
        QTest::newRow("negative integer")
            << json{{"token_budget", -1}} << "--set token_budget: must be a non-negative integer, got -1";
        QTest::newRow("fraction") << json{{"timeout_per_step_sec", 1.5}}
                                  << "--set timeout_per_step_sec: must be a non-negative integer, got 1.5";
        QTest::newRow("number as a string")
            << json{{"max_memory_mb", "400"}}
            << "--set max_memory_mb: must be a non-negative integer, got \"400\"";
        QTest::newRow("integer as boolean")
            << json{{"memory_threshold_mb", true}}
            << "--set memory_threshold_mb: must be a non-negative integer, got true";
        QTest::newRow("context_window_limit below 1000")
            << json{{"context_window_limit", 999}}
            << "--set context_window_limit: must be an integer >= 1000, got 999";
        QTest::newRow("keep_recent_messages below 2")
            << json{{"keep_recent_messages", 1}}
            << "--set keep_recent_messages: must be an integer >= 2, got 1";
        QTest::newRow("shell_timeout_sec zero")
            << json{{"shell_timeout_sec", 0}} << "--set shell_timeout_sec: must be an integer >= 1, got 0";
        QTest::newRow("tool_output_limit_bytes below 256")
            << json{{"tool_output_limit_bytes", 255}}
            << "--set tool_output_limit_bytes: must be an integer >= 256, got 255";
        QTest::newRow("auto_save_interval null")
            << json{{"auto_save_interval", nullptr}}
            << "--set auto_save_interval: must be a non-negative integer, got null";
        QTest::newRow("boolean as string")
            << json{{"lazy_tools", "yes"}} << "--set lazy_tools: must be true or false, got \"yes\"";
        QTest::newRow("boolean as number")
            << json{{"execution_cache", 0}} << "--set execution_cache: must be true or false, got 0";
        QTest::newRow("skills_dirs not an array")
            << json{{"skills_dirs", "/skills"}}
            << "--set skills_dirs: must be an array of at most 16 absolute paths, got \"/skills\"";
        QTest::newRow("skills_dirs relative")
            << json{{"skills_dirs", json::array({"skills"})}}
            << "--set skills_dirs: must be an array of at most 16 absolute paths, got [\"skills\"]";
        QTest::newRow("skills_dirs twice")
            << json{{"skills_dirs", {"/skills", "/skills"}}}
            << "--set skills_dirs: \"/skills\" is listed twice";
        QTest::newRow("unknown memory backend")
            << json{{"memory_backend", "redis"}}
            << "--set memory_backend: must be one of \"in-memory\", \"filesystem\", \"host\", got \"redis\"";
        QTest::newRow("enum is case-sensitive")
            << json{{"log_level", "INFO"}}
            << "--set log_level: must be one of \"debug\", \"info\", \"warn\", \"error\", got \"INFO\"";
        QTest::newRow("unknown log format")
            << json{{"log_format", "xml"}}
            << "--set log_format: must be one of \"text\", \"json\", got \"xml\"";
        QTest::newRow("memory_dir relative")
            << json{{"memory_dir", "memories"}}
            << "--set memory_dir: must be an absolute path, got \"memories\"";
        QTest::newRow("memory_dir empty")
            << json{{"memory_dir", ""}} << "--set memory_dir: must be an absolute path, got \"\"";
        const QString prefixRule = "--set memory_prefix: must be \"\" or segments of [A-Za-z0-9._-] "
                                   "separated by '/', without \".\" or "
                                   "\"..\", got ";
        QTest::newRow("memory_prefix dot-dot")
            << json{{"memory_prefix", "a/../b"}} << prefixRule + "\"a/../b\"";
        QTest::newRow("memory_prefix only dot-dot") << json{{"memory_prefix", ".."}} << prefixRule + "\"..\"";
        QTest::newRow("memory_prefix dot") << json{{"memory_prefix", "a/."}} << prefixRule + "\"a/.\"";
        QTest::newRow("memory_prefix leading slash")
            << json{{"memory_prefix", "/a"}} << prefixRule + "\"/a\"";
        QTest::newRow("memory_prefix trailing slash")
            << json{{"memory_prefix", "a/"}} << prefixRule + "\"a/\"";
        QTest::newRow("memory_prefix empty segment")
            << json{{"memory_prefix", "a//b"}} << prefixRule + "\"a//b\"";
        QTest::newRow("memory_prefix space") << json{{"memory_prefix", "a b"}} << prefixRule + "\"a b\"";
        QTest::newRow("memory_prefix number") << json{{"memory_prefix", 5}} << prefixRule + "5";
        QTest::newRow("tools not an array")
            << json{{"tools", "shell"}} << "--set tools: must be an array of tool names, got \"shell\"";
        QTest::newRow("tools with a number")
            << json{{"tools", {"shell", 1}}}
            << "--set tools: must be an array of tool names, got [\"shell\",1]";
        QTest::newRow("unknown tool") << json{{"tools", json::array({"shel"})}}
                                      << "--set tools: unknown tool \"shel\" (known: shell, read_file, "
                                         "write_file, edit_file, apply_patch, list_files, "
                                         "search, update_plan, memory_save, memory_load, memory_search, "
                                         "skill, finish)";
        QTest::newRow("duplicate tool")
            << json{{"tools", {"shell", "read_file", "shell"}}} << "--set tools: \"shell\" is listed twice";
        QTest::newRow("unknown approval tool")
            << json{{"approval_tools", json::array({"rm"})}}
            << "--set approval_tools: unknown tool \"rm\" (known: shell, read_file, write_file, edit_file, "
               "apply_patch, list_files, search, update_plan, memory_save, memory_load, memory_search, "
               "skill, finish; an MCP server's: mcp__SERVER__TOOL, mcp__SERVER__*, mcp__*)";
        QTest::newRow("duplicate approval tool") << json{{"approval_tools", {"shell", "shell"}}}
                                                 << "--set approval_tools: \"shell\" is listed twice";
        QTest::newRow("hook not a string")
            << json{{"on_step", 5}} << "--set on_step: must be a shell command (\"\" = none), got 5";
        QTest::newRow("hook as array")
            << json{{"on_error", {"echo", "x"}}}
            << "--set on_error: must be a shell command (\"\" = none), got [\"echo\",\"x\"]";
        QTest::newRow("typo suggests the key")
            << json{{"max_step", 5}} << "--set: unknown key \"max_step\" (did you mean max_steps?)";
        QTest::newRow("typo in a hook")
            << json{{"on_stpe", "x"}} << "--set: unknown key \"on_stpe\" (did you mean on_step?)";
        QTest::newRow("overrides not an object")
            << json::array({1}) << "--set: must be an object of key -> value, got [1]";
        QTest::newRow("long value shortened")
            << json{{"memory_dir", std::string(100, 'a')}}
            << "--set memory_dir: must be an absolute path, got \"" + QString(59, 'a') + "...";
    }

    void refusesBadValues() {
        QFETCH(json, overrides);
        QFETCH(QString, message);
        QCOMPARE(errorOf({}, overrides), message);
        // The same mistake after a preset is still reported against the overrides.
        QCOMPARE(errorOf({"safe-mode"}, overrides), message);
    }

    void unknownKeyWithoutLikelyMatchListsTheKeys() {
        const auto message = errorOf({}, json{{"colour", "blue"}});
        QVERIFY2(
            message.startsWith("--set: unknown key \"colour\" (known: max_steps, timeout_per_step_sec, "),
            qPrintable(message));
        for (const auto& info : settingInfos())
            QVERIFY2(message.contains(QString::fromStdString(info.name)), info.name.c_str());
    }

    void overridesSourceNamesTheOverrides() {
        const auto config = resolveConfig({}, json{{"loop_threshold", 0}}, "task.start overrides");
        QVERIFY(!config.ok());
        QCOMPARE(QString::fromStdString(config.error().message),
                 "task.start overrides loop_threshold: must be an integer >= 2, got 0");
    }

    void unknownPresetListsTheKnownOnes() {
        QCOMPARE(errorOf({"safe-mode", "safe_mode"}, json()),
                 "unknown preset \"safe_mode\" (known: local-light, long-term-memory, memory-optimized, "
                 "production-log, safe-mode, team)");
        QVERIFY(resolveConfig({"safe_mode"}, json()).error().code == ErrorCode::InvalidArgument);
    }

    void addOverrideReadsValues_data() {
        QTest::addColumn<QString>("argument");
        QTest::addColumn<QString>("key");
        QTest::addColumn<json>("value");
        QTest::newRow("integer") << "max_steps=5"
                                 << "max_steps" << json(5);
        QTest::newRow("boolean") << "lazy_tools=true"
                                 << "lazy_tools" << json(true);
        QTest::newRow("array") << R"(tools=["shell","finish"])"
                               << "tools" << json{"shell", "finish"};
        QTest::newRow("path is a string") << "memory_dir=/x"
                                          << "memory_dir" << json("/x");
        QTest::newRow("word is a string") << "log_level=debug"
                                          << "log_level" << json("debug");
        QTest::newRow("quoted JSON string") << R"(memory_prefix="123")"
                                            << "memory_prefix" << json("123");
        QTest::newRow("command with spaces and =") << "on_step=make test ARGS=-j2"
                                                   << "on_step" << json("make test ARGS=-j2");
        QTest::newRow("empty value") << "on_error="
                                     << "on_error" << json("");
        QTest::newRow("broken JSON is a string") << "tools=[shell"
                                                 << "tools" << json("[shell");
    }

    void addOverrideReadsValues() {
        QFETCH(QString, argument);
        QFETCH(QString, key);
        QFETCH(json, value);
        json overrides;
        const auto status = addOverride(overrides, argument.toStdString());
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
        QCOMPARE(text(overrides), text(json{{key.toStdString(), value}}));
    }

    void addOverrideLaterWins() {
        json overrides;
        QVERIFY(addOverride(overrides, "max_steps=5").ok());
        QVERIFY(addOverride(overrides, "log_level=debug").ok());
        QVERIFY(addOverride(overrides, "max_steps=9").ok());
        QCOMPARE(text(overrides), text(json{{"log_level", "debug"}, {"max_steps", 9}}));
        const auto config = resolved({"safe-mode"}, overrides);
        QCOMPARE(config.maxSteps, 9u);
        QVERIFY(config.logLevel == LogLevel::Debug);
    }

    void addOverrideRefuses_data() {
        QTest::addColumn<QByteArray>("argument");
        QTest::addColumn<QString>("message");
        QTest::newRow("no equals sign")
            << QByteArray("max_steps") << "--set \"max_steps\": expected KEY=VALUE, e.g. --set max_steps=20";
        QTest::newRow("empty key") << QByteArray("=5") << "--set \"=5\": the key before '=' is empty";
        QTest::newRow("empty argument")
            << QByteArray("") << "--set \"\": expected KEY=VALUE, e.g. --set max_steps=20";
        QTest::newRow("invalid UTF-8")
            << QByteArray("memory_dir=/x\xff") << "--set: the argument is not valid UTF-8 (byte 14)";
    }

    void addOverrideRefuses() {
        QFETCH(QByteArray, argument);
        QFETCH(QString, message);
        json overrides;
        const auto status = addOverride(overrides, argument.toStdString());
        QVERIFY(!status.ok());
        QCOMPARE(QByteArray::fromStdString(status.error().message), message.toUtf8());
        QVERIFY(overrides.is_null());
    }

    void setThroughAddOverrideIsValidated() {
        json overrides;
        QVERIFY(addOverride(overrides, "loop_threshold=1").ok());
        QCOMPARE(errorOf({}, overrides), "--set loop_threshold: must be an integer >= 2, got 1");
    }

    void configToJsonRoundTrips_data() {
        QTest::addColumn<QStringList>("presets");
        QTest::addColumn<json>("overrides");
        QTest::newRow("defaults") << QStringList{} << json();
        for (const auto& name : presetNames())
            QTest::newRow(name.c_str()) << QStringList{QString::fromStdString(name)} << json();
        QTest::newRow("all presets") << QStringList{"memory-optimized", "production-log", "long-term-memory",
                                                    "safe-mode", "local-light"}
                                     << json();
        QTest::newRow("every key changed") << QStringList{}
                                           << json{{"max_steps", 3},
                                                   {"timeout_per_step_sec", 4},
                                                   {"token_budget", 5000}, {"idle_sleep_sec", 90},
                                                   {"loop_detection", true},
                                                   {"loop_threshold", 4},
                                                   {"memory_threshold_mb", 100},
                                                   {"max_memory_mb", 200},
                                                   {"context_window_limit", 4000},
                                                   {"keep_recent_messages", 6},
                                                   {"compress_history", true},
                                                   {"compaction_summary", "mechanical"},
                                                   {"tools", {"search", "shell", "finish"}},
                                                   {"lazy_tools", true},
                                                   {"shell_timeout_sec", 9},
                                                   {"tool_output_limit_bytes", 1000},
                                                   {"approval_tools", json::array({"memory_save"})},
                                                   {"execution_cache", false},
                                                   {"skills_dirs", {"/skills/user", "/skills/tenant"}},
                                                   {"memory_backend", "host"},
                                                   {"memory_dir", "/data/mem"},
                                                   {"memory_prefix", "user/task-1"},
                                                   {"auto_save_interval", 15},
                                                   {"semantic_index", true},
                                                   {"log_level", "error"},
                                                   {"log_format", "json"},
                                                   {"on_task_start", "echo start"},
                                                   {"on_step", "echo step"},
                                                   {"on_task_complete", "echo done"},
                                                   {"on_low_memory", "sync"},
                                                   {"on_error", "echo error >&2"}};
    }

    void configToJsonRoundTrips() {
        QFETCH(QStringList, presets);
        QFETCH(json, overrides);
        std::vector<std::string> names;
        for (const auto& name : presets)
            names.push_back(name.toStdString());
        const auto config = resolveConfig(names, overrides);
        QVERIFY2(config.ok(), config.ok() ? "" : config.error().message.c_str());
        const auto out = configToJson(config.value());
        if (!overrides.is_null()) {
            for (const auto& [key, value] : overrides.items())
                QCOMPARE(text(out[key]), text(value));
        }
        const auto again = resolveConfig({}, out);
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QVERIFY(again.value() == config.value());
        QCOMPARE(text(configToJson(again.value())), text(out));
    }

    void settingInfosDescribeEveryKey() {
        const auto defaults = configToJson(AgentConfig{});
        const auto infos = settingInfos();
        QCOMPARE(infos.size(), defaults.size());
        QCOMPARE(infos.size(), std::size_t{39});
        for (const auto& info : infos) {
            QVERIFY2(defaults.contains(info.name), info.name.c_str());
            QCOMPARE(text(info.defaultValue), text(defaults[info.name]));
            QVERIFY2(!info.meaning.empty(), info.name.c_str());
            QVERIFY2(!info.type.empty(), info.name.c_str());
        }
        const auto loop = std::find_if(infos.begin(), infos.end(),
                                       [](const SettingInfo& info) { return info.name == "loop_threshold"; });
        QVERIFY(loop != infos.end());
        QCOMPARE(loop->type, std::string("an integer >= 2"));
    }
};

QTEST_APPLESS_MAIN(TestAgentConfig)
#include "tst_agent_config.moc"
