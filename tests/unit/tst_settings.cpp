// Settings: what is valid (model, presets, concurrency, sandbox), the recent-workspace list, and a round
// trip through a real warren.db.
#include "app/control/Settings.h"
#include "app/store/sqlite/SqliteStore.h"

#include <QTemporaryDir>
#include <QtTest>

using warren::control::Settings;

class TestSettings : public QObject {
    Q_OBJECT
private slots:
    void validation_data();
    void validation();
    void sandboxValidation_data();
    void sandboxValidation();
    void allowedCommandsArePlainPrefixes();
    void allowedHostsAreOneNameAndPort();
    void recentWorkspacesMoveToTheFront();
    void roundTripThroughTheStore();
    void damagedRowIsReported();
    void damagedSandboxRowIsReported_data();
    void damagedSandboxRowIsReported();
};

void TestSettings::validation_data() {
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("presets");
    QTest::addColumn<int>("maxConcurrent");
    QTest::addColumn<QString>("error"); // empty: valid

    QTest::newRow("no model: the demo") << "" << "" << QStringList{} << 4 << "";
    QTest::newRow("openai with a model") << "openai" << "gpt-4o-mini" << QStringList{"safe-mode"} << 1 << "";
    QTest::newRow("compatible server") << "openai-compatible:http://127.0.0.1:8080/v1" << "m" << QStringList{} << 64
                                       << "";
    QTest::newRow("provider without model") << "anthropic" << "" << QStringList{} << 4 << "needs a model";
    QTest::newRow("unknown provider") << "gemini" << "x" << QStringList{} << 4 << "unknown provider";
    QTest::newRow("bad url") << "openai-compatible:ftp://x" << "m" << QStringList{} << 4 << "http://";
    QTest::newRow("unknown preset") << "" << "" << QStringList{"fast"} << 4 << "unknown preset \"fast\"";
    QTest::newRow("no task at a time") << "" << "" << QStringList{} << 0 << "between 1 and 64";
    QTest::newRow("too many at a time") << "" << "" << QStringList{} << 65 << "between 1 and 64";
}

void TestSettings::validation() {
    QFETCH(QString, provider);
    QFETCH(QString, model);
    QFETCH(QStringList, presets);
    QFETCH(int, maxConcurrent);
    QFETCH(QString, error);
    Settings settings;
    settings.provider = provider.toStdString();
    settings.model = model.toStdString();
    for (const QString& preset : presets)
        settings.presets.push_back(preset.toStdString());
    settings.maxConcurrent = static_cast<std::size_t>(maxConcurrent);
    const auto status = warren::control::validateSettings(settings);
    if (error.isEmpty()) {
        QVERIFY2(bool(status), status ? "" : status.error().message.c_str());
    } else {
        QVERIFY(!status);
        QVERIFY2(QString::fromStdString(status.error().message).contains(error), status.error().message.c_str());
    }
}

void TestSettings::sandboxValidation_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("error"); // empty: valid

    const QString image = "debian:bookworm-slim";
    QTest::newRow("bubblewrap") << "bwrap" << image << "none" << "";
    QTest::newRow("podman") << "podman" << "localhost/warren-test:1" << "none" << "";
    QTest::newRow("docker with a digest") << "docker" << "debian@sha256:0123abcd" << "none" << "";
    QTest::newRow("loopback") << "bwrap" << image << "loopback" << "";
    QTest::newRow("unknown backend") << "lxc" << image << "none" << "bwrap (bubblewrap), docker, podman, kube (a Pod, played by podman) or kubernetes";
    QTest::newRow("empty backend") << "" << image << "none" << "backend";
    QTest::newRow("kube: a pod, its agent connecting") << "kube" << "localhost/warren-test:1" << "none" << "";
    QTest::newRow("empty image") << "podman" << "" << "none" << "expected an image name";
    QTest::newRow("image read as an option") << "podman" << "--privileged" << "none" << "expected an image name";
    QTest::newRow("image with a space") << "docker" << "debian bookworm" << "none" << "expected an image name";
    QTest::newRow("image with a newline") << "docker" << "debian\nx" << "none" << "expected an image name";
    QTest::newRow("unknown network") << "bwrap" << image << "host" << "\"host\": use none, loopback or allow:";
    QTest::newRow("allow-list") << "bwrap" << image << "allow:pypi.org,*.pythonhosted.org" << "";
    QTest::newRow("allow-list too broad") << "bwrap" << image << "allow:*.com" << "*.com";
    QTest::newRow("empty network") << "bwrap" << image << "" << "use none, loopback or allow:";
}

void TestSettings::allowedCommandsArePlainPrefixes() {
    Settings settings;
    settings.allowedCommands = {"git status", "make", "./gradlew build"};
    QVERIFY(bool(warren::control::validateSettings(settings)));
    for (const char* bad : {"rm -rf /", "git status; curl x", "", ".*", "CC=x make"}) {
        settings.allowedCommands = {bad};
        const auto status = warren::control::validateSettings(settings);
        QVERIFY2(!status, bad);
        QVERIFY2(QString::fromStdString(status.error().message).contains("always allowed command"), bad);
    }
}

void TestSettings::sandboxValidation() {
    QFETCH(QString, backend);
    QFETCH(QString, image);
    QFETCH(QString, network);
    QFETCH(QString, error);
    Settings settings;
    // The backend is parsed where it comes in (a setting read from the store, the dialog): an unknown one is
    // that parse's error.
    const auto parsed = warren::sandbox::parseBackend(backend.toStdString());
    if (parsed)
        settings.backend = *parsed;
    settings.image = image.toStdString();
    settings.network = network.toStdString();
    const auto status = parsed ? warren::control::validateSettings(settings) : warren::Status(parsed.error());
    if (error.isEmpty()) {
        QVERIFY2(bool(status), status ? "" : status.error().message.c_str());
    } else {
        QVERIFY(!status);
        QVERIFY2(QString::fromStdString(status.error().message).contains(error), status.error().message.c_str());
    }
}

void TestSettings::recentWorkspacesMoveToTheFront() {
    std::vector<std::string> recent;
    for (int i = 0; i < 10; ++i)
        recent = warren::control::rememberWorkspace(recent, "/w/" + std::to_string(i));
    QCOMPARE(recent.size(), Settings::kMaxRecentWorkspaces);
    QCOMPARE(recent.front(), std::string("/w/9"));
    recent = warren::control::rememberWorkspace(recent, "/w/5");
    QCOMPARE(recent.front(), std::string("/w/5"));
    QCOMPARE(std::count(recent.begin(), recent.end(), std::string("/w/5")), 1);
    QCOMPARE(recent.size(), Settings::kMaxRecentWorkspaces);
}

// What "always for this workspace" keeps: one name and its port, as a question asked about it.
void TestSettings::allowedHostsAreOneNameAndPort() {
    Settings settings;
    settings.allowedHosts = {{"/home/u/a", {"pypi.org:443", "files.example:8080"}}};
    QVERIFY(bool(warren::control::validateSettings(settings)));
    for (const char* bad : {"pypi.org", "*.example.com:443", "127.0.0.1:80", "a.example:443,b.example:443", "",
                            "pypi.org:0", "bad_name:443"}) {
        settings.allowedHosts = {{"/home/u/a", {bad}}};
        const auto status = warren::control::validateSettings(settings);
        QVERIFY2(!status, bad);
        QVERIFY2(QString::fromStdString(status.error().message).contains("host allowed for /home/u/a"), bad);
    }
}

void TestSettings::roundTripThroughTheStore() {
    QTemporaryDir dir;
    auto opened = warren::control::openSqliteStore(dir.filePath("warren.db").toStdString());
    QVERIFY(bool(opened));
    warren::control::Store* store = opened->get();
    auto defaults = warren::control::loadSettings(*store);
    QVERIFY(bool(defaults));
    QCOMPARE(*defaults, Settings{});
    QCOMPARE(warren::sandbox::backendName(defaults->backend), std::string("bwrap"));
    QCOMPARE(defaults->image, std::string("debian:bookworm-slim"));
    QCOMPARE(defaults->network, std::string("none"));
    QCOMPARE(defaults->warmContainers, std::uint64_t(1));

    Settings settings;
    settings.provider = "anthropic";
    settings.model = "claude-test";
    settings.presets = {"safe-mode", "production-log"};
    settings.maxConcurrent = 3;
    settings.idleSleepSec = 600;
    settings.retentionDays = 30;
    settings.warmContainers = 0;
    settings.recentWorkspaces = {"/home/u/a", "/home/u/b"};
    settings.backend = warren::sandbox::Backend::Podman;
    settings.image = "localhost/warren-test:1";
    settings.network = "loopback";
    settings.allowedCommands = {"cargo test", "make"};
    settings.allowedHosts = {{"/home/u/a", {"pypi.org:443"}}, {"/home/u/b", {"api.example:8443", "x.example:80"}}};
    settings.mcpServers = {{"github", {{"command", "github-mcp"}, {"env", {{"TOKEN", "${GITHUB_TOKEN}"}}}}},
                           {"docs", {{"type", "http"}, {"url", "https://docs.example/mcp"}}}};
    QVERIFY(bool(warren::control::saveSettings(*store, settings)));
    auto loaded = warren::control::loadSettings(*store);
    QVERIFY(bool(loaded));
    QCOMPARE(*loaded, settings);

    Settings invalid = settings;
    invalid.presets = {"nope"};
    QVERIFY(!warren::control::saveSettings(*store, invalid));
    invalid = settings;
    invalid.idleSleepSec = 7 * 24 * 3600 + 1; // over a week
    QVERIFY(!warren::control::saveSettings(*store, invalid));
    invalid = settings;
    invalid.retentionDays = 36'501; // over a hundred years: a typo
    QVERIFY(!warren::control::saveSettings(*store, invalid));
    invalid = settings;
    invalid.warmContainers = Settings::kMaxWarmContainers + 1;
    QVERIFY(!warren::control::saveSettings(*store, invalid));
    invalid = settings;
    invalid.mcpServers["broken"] = {{"args", {"x"}}};
    const auto refused = warren::control::saveSettings(*store, invalid);
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.find("MCP server \"broken\": no \"command\"") != std::string::npos,
             refused.error().message.c_str());
    QCOMPARE(*warren::control::loadSettings(*store), settings); // nothing of it was written
}

void TestSettings::damagedRowIsReported() {
    QTemporaryDir dir;
    auto opened = warren::control::openSqliteStore(dir.filePath("warren.db").toStdString());
    QVERIFY(bool(opened));
    warren::control::Store* store = opened->get();
    QVERIFY(bool(store->setSetting("tasks.presets", "{not a list")));
    const auto loaded = warren::control::loadSettings(*store);
    QVERIFY(!loaded);
    QVERIFY(QString::fromStdString(loaded.error().message).contains("tasks.presets"));
}

void TestSettings::damagedSandboxRowIsReported_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::newRow("backend") << "sandbox.backend" << "chroot";
    QTest::newRow("image") << "sandbox.image" << "--privileged";
    QTest::newRow("network") << "sandbox.network" << "host";
    QTest::newRow("allowed commands") << "approvals.allowed_commands" << "[\"rm -rf /\"]";
    QTest::newRow("allowed hosts, a wildcard") << "network.workspace_hosts" << "{\"/w\": [\"*.example.com:443\"]}";
    QTest::newRow("allowed hosts, not a map") << "network.workspace_hosts" << "[\"pypi.org:443\"]";
    QTest::newRow("allowed hosts, not a list") << "network.workspace_hosts" << "{\"/w\": \"pypi.org:443\"}";
    QTest::newRow("MCP servers, not a map") << "mcp.servers" << "[\"github\"]";
    QTest::newRow("MCP servers, one without a command") << "mcp.servers" << "{\"x\": {\"args\": []}}";
}

void TestSettings::damagedSandboxRowIsReported() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QTemporaryDir dir;
    auto opened = warren::control::openSqliteStore(dir.filePath("warren.db").toStdString());
    QVERIFY(bool(opened));
    warren::control::Store* store = opened->get();
    QVERIFY(bool(store->setSetting(key.toStdString(), value.toStdString())));
    const auto loaded = warren::control::loadSettings(*store);
    QVERIFY(!loaded);
    QVERIFY2(QString::fromStdString(loaded.error().message).contains(key), loaded.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
