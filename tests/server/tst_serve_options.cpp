// warrend serve's command line: what each flag sets, and the refusals that name the flag.
#include "server/api/ServeOptions.h"
#include "tests/support/StringLists.h"

#include <QtTest>

using warren::server::parseServeOptions;
using warren::test::toQt;
using warren::test::toStd;

namespace {

const QStringList kRequired{"--listen",        "127.0.0.1:8420", "--database",
                            "postgresql:///w", "--data-dir",     "/srv/w"};

} // namespace

class TestServeOptions : public QObject {
    Q_OBJECT

private slots:
    void readsEveryFlag() {
        auto options = parseServeOptions(toStd(kRequired + QStringList{"--tls-cert",
                                                                       "c.pem",
                                                                       "--tls-key",
                                                                       "k.pem",
                                                                       "--backend",
                                                                       "podman",
                                                                       "--image",
                                                                       "localhost/a:1",
                                                                       "--max-tasks",
                                                                       "8",
                                                                       "--provider",
                                                                       "openai",
                                                                       "--model",
                                                                       "m",
                                                                       "--max-upload-mb",
                                                                       "3",
                                                                       "--provider-key-secret",
                                                                       "/etc/warrend/keys.secret",
                                                                       "--max-connections-per-client",
                                                                       "0",
                                                                       "--warm-containers",
                                                                       "3"}));
        QVERIFY2(options, options ? "" : options.error().message.c_str());
        QCOMPARE(options->host, std::string("127.0.0.1"));
        QCOMPARE(options->port, std::uint16_t(8420));
        QCOMPARE(options->databaseUrl, std::string("postgresql:///w"));
        QCOMPARE(options->dataDir, std::string("/srv/w"));
        QCOMPARE(options->tlsCertificate, std::string("c.pem"));
        QCOMPARE(options->tlsKey, std::string("k.pem"));
        QVERIFY(options->backend == warren::sandbox::Backend::Podman);
        QCOMPARE(options->image, std::string("localhost/a:1"));
        QCOMPARE(options->maxTasks, std::size_t(8));
        QCOMPARE(options->provider, std::string("openai"));
        QCOMPARE(options->model, std::string("m"));
        QCOMPARE(options->maxUploadBytes, std::uint64_t(3) << 20);
        QCOMPARE(options->providerKeySecret, std::string("/etc/warrend/keys.secret"));
        QCOMPARE(options->maxConnectionsPerClient, 0u);
        QCOMPARE(options->warmContainers, 3u);
    }

    void withoutASecretUsersStoreNoKeys() {
        auto options = parseServeOptions(toStd(kRequired));
        QVERIFY(options);
        QVERIFY(options->providerKeySecret.empty());
        QCOMPARE(options->maxConnectionsPerClient, 64u);
        QVERIFY(options->allowInternal.empty()); // nothing inside is reached but the operator's --provider
        QVERIFY(options->insideAccess().operatorOnly);
    }

    void readsTheInternalDestinationsTheOperatorAllows() {
        auto options = parseServeOptions(
            toStd(kRequired + QStringList{"--allow-internal", "127.0.0.1:11434,10.0.0.0/8", "--allow-internal",
                                          "models.internal:8000"}));
        QVERIFY2(options, options ? "" : options.error().message.c_str());
        QCOMPARE(options->allowInternal.size(), std::size_t(3)); // repeated flags add up
        const auto access = options->insideAccess();
        QVERIFY(warren::control::insideReachable(access, "127.0.0.1", QHostAddress("127.0.0.1"), 11434));
        QVERIFY(!warren::control::insideReachable(access, "127.0.0.1", QHostAddress("127.0.0.1"), 5432));
        QVERIFY(warren::control::insideReachable(access, "x", QHostAddress("10.2.3.4"), 22));
        QVERIFY(warren::control::insideReachable(access, "models.internal", QHostAddress("172.16.0.9"), 8000));
    }

    void readsTheAgentsAddresses() {
        auto options = parseServeOptions(toStd(
            kRequired + QStringList{"--agent-address", "0.0.0.0:8421", "--agent-advertise", "warrend.warren:8421"}));
        QVERIFY2(options, options ? "" : options.error().message.c_str());
        QCOMPARE(options->agentAddress, std::string("0.0.0.0:8421"));
        QCOMPARE(options->agentAdvertise, std::string("warrend.warren:8421"));
        QVERIFY(options->agentService.empty());
        auto replicas = parseServeOptions(
            toStd(kRequired + QStringList{"--agent-address", "0.0.0.0:8421", "--agent-advertise",
                                          "10.1.2.3:8421", "--agent-service", "warrend.warren:8421"}));
        QVERIFY2(replicas, replicas ? "" : replicas.error().message.c_str());
        QCOMPARE(replicas->agentService, std::string("warrend.warren:8421"));
        auto alone = parseServeOptions(toStd(kRequired + QStringList{"--agent-address", "10.0.0.5:0"}));
        QVERIFY2(alone, alone ? "" : alone.error().message.c_str());
        QCOMPARE(alone->agentAddress, std::string("10.0.0.5:0"));
        QVERIFY(alone->agentAdvertise.empty());
        auto none = parseServeOptions(toStd(kRequired));
        QVERIFY(none && none->agentAddress.empty() && none->agentAdvertise.empty());
        QVERIFY(!none->agentPeer && none->runtimeClass.empty());
    }

    // The cluster's pods: who they may reach (warrend's pods, or its address block) and their runtime class.
    void readsThePodsPeerAndRuntimeClass() {
        auto options = parseServeOptions(
            toStd(kRequired + QStringList{"--backend", "kubernetes", "--agent-address", "10.0.0.5:8421",
                                          "--agent-peer", "warren/app.kubernetes.io/name=warrend",
                                          "--runtime-class", "gvisor"}));
        QVERIFY2(options, options ? "" : options.error().message.c_str());
        QVERIFY(options->agentPeer);
        QCOMPARE(options->agentPeer->namespaceName, std::string("warren"));
        QCOMPARE(options->agentPeer->podLabels.at("app.kubernetes.io/name"), std::string("warrend"));
        QCOMPARE(options->runtimeClass, std::string("gvisor"));
        auto block = parseServeOptions(toStd(kRequired + QStringList{"--backend", "kubernetes", "--agent-address",
                                                                     "10.0.0.5:8421", "--agent-peer", "10.0.0.5/32"}));
        QVERIFY2(block, block ? "" : block.error().message.c_str());
        QCOMPARE(block->agentPeer->ipBlock, std::string("10.0.0.5/32"));
    }

    void readsTheOperatorsCliAgents() {
        auto options = parseServeOptions(toStd(kRequired + QStringList{"--agent-cli", "claude-code=/opt/claude/claude",
                                                                       "--agent-cli", "codex=/opt/codex/bin/codex"}));
        QVERIFY2(options, options ? "" : options.error().message.c_str());
        using warren::protocol::AgentKind;
        QCOMPARE(options->agentClis.at(AgentKind::ClaudeCode), std::string("/opt/claude/claude"));
        QCOMPARE(options->agentClis.at(AgentKind::Codex), std::string("/opt/codex/bin/codex"));
        QVERIFY(parseServeOptions(toStd(kRequired))->agentClis.empty()); // looked up on PATH at launch
    }

    void readsAnIpv6Listen() {
        auto options =
            parseServeOptions(toStd({"--listen", "[::1]:0", "--database", "d", "--data-dir", "x"}));
        QVERIFY(options);
        QCOMPARE(options->host, std::string("::1"));
        QCOMPARE(options->port, std::uint16_t(0));
    }

    void refuses_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message"); // a part of the error
        QTest::newRow("no listen") << QStringList{"--database", "d", "--data-dir", "x"}
                                   << "--listen HOST:PORT is required";
        QTest::newRow("no database") << QStringList{"--listen", "h:1", "--data-dir", "x"}
                                     << "--database URL is required";
        QTest::newRow("no data dir") << QStringList{"--listen", "h:1", "--database", "d"}
                                     << "--data-dir DIR is required";
        QTest::newRow("listen without port")
            << (kRequired + QStringList{"--listen", "localhost"}) << "expected HOST:PORT";
        QTest::newRow("port too big")
            << (kRequired + QStringList{"--listen", "h:70000"}) << "from 0 to 65535";
        QTest::newRow("zero tasks") << (kRequired + QStringList{"--max-tasks", "0"}) << "--max-tasks 0";
        QTest::newRow("too many warm containers")
            << (kRequired + QStringList{"--warm-containers", "65"}) << "--warm-containers";
        QTest::newRow("upload size not a number")
            << (kRequired + QStringList{"--max-upload-mb", "lots"}) << "--max-upload-mb lots";
        QTest::newRow("connections per client not a number")
            << (kRequired + QStringList{"--max-connections-per-client", "many"})
            << "--max-connections-per-client many";
        QTest::newRow("cert without key")
            << (kRequired + QStringList{"--tls-cert", "c.pem"}) << "go together";
        QTest::newRow("unknown backend") << (kRequired + QStringList{"--backend", "vm"}) << "vm";
        QTest::newRow("agent address without port")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5"}) << "--agent-address \"10.0.0.5\": a TCP address is HOST:PORT";
        QTest::newRow("agent address bare IPv6")
            << (kRequired + QStringList{"--agent-address", "::1:8421"}) << "[ADDRESS]";
        QTest::newRow("advertised port 0")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5:0", "--agent-advertise", "w:0"})
            << "--agent-advertise \"w:0\": the port is a number from 1 to 65535";
        QTest::newRow("advertise without address")
            << (kRequired + QStringList{"--agent-advertise", "w:8421"}) << "goes with --agent-address";
        QTest::newRow("a service without a listener")
            << (kRequired + QStringList{"--agent-service", "w:8421"})
            << "--agent-service goes with --agent-address";
        QTest::newRow("a service without a port")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5:0", "--agent-service", "w"})
            << "--agent-service";
        QTest::newRow("every address, none advertised")
            << (kRequired + QStringList{"--agent-address", "0.0.0.0:8421"}) << "name the one the pods reach";
        QTest::newRow("every IPv6 address, none advertised")
            << (kRequired + QStringList{"--agent-address", "[::]:8421"}) << "--agent-advertise HOST:PORT";
        QTest::newRow("cluster without a peer")
            << (kRequired + QStringList{"--backend", "kubernetes", "--agent-address", "10.0.0.5:8421"})
            << "--backend kubernetes needs --agent-peer";
        QTest::newRow("peer without address")
            << (kRequired + QStringList{"--agent-peer", "warren/app=warrend"}) << "--agent-address HOST:PORT, which is missing";
        QTest::newRow("runtime class without address")
            << (kRequired + QStringList{"--runtime-class", "gvisor"}) << "--runtime-class describes the pods";
        QTest::newRow("peer of no form")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5:8421", "--agent-peer", "warrend"})
            << "--agent-peer \"warrend\": no '/'";
        QTest::newRow("peer of every address")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5:8421", "--agent-peer", "0.0.0.0/0"})
            << "would let the pods reach anything";
        QTest::newRow("runtime class not a name")
            << (kRequired + QStringList{"--agent-address", "10.0.0.5:8421", "--runtime-class", "G Visor"})
            << "DNS-1123 label";
        QTest::newRow("unknown option")
            << (kRequired + QStringList{"--verbose", "1"}) << "unknown option --verbose";
        QTest::newRow("flag without value")
            << (kRequired + QStringList{"--model"}) << "--model needs a value";
        QTest::newRow("provider key secret without value")
            << (kRequired + QStringList{"--provider-key-secret"}) << "--provider-key-secret needs a value";
        QTest::newRow("allow-internal not a destination")
            << (kRequired + QStringList{"--allow-internal", "127.1"}) << "--allow-internal: \"127.1\"";
        QTest::newRow("allow-internal bad block")
            << (kRequired + QStringList{"--allow-internal", "10.0.0.0/40"}) << "prefix length";
        QTest::newRow("agent cli of warren's own agent")
            << (kRequired + QStringList{"--agent-cli", "warren=/usr/bin/warren-agent"}) << "claude-code=PATH or codex=PATH";
        QTest::newRow("agent cli unknown") << (kRequired + QStringList{"--agent-cli", "aider=/x"}) << "--agent-cli aider=/x";
        QTest::newRow("agent cli without path") << (kRequired + QStringList{"--agent-cli", "codex"}) << "absolute path";
        QTest::newRow("agent cli relative") << (kRequired + QStringList{"--agent-cli", "codex=bin/codex"}) << "absolute path";
        QTest::newRow("provider key secret empty")
            << (kRequired + QStringList{"--provider-key-secret", ""}) << "openssl rand -out FILE 32";
    }

    void refuses() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        auto options = parseServeOptions(toStd(args));
        QVERIFY(!options);
        QVERIFY2(options.error().message.find(message.toStdString()) != std::string::npos,
                 options.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestServeOptions)
#include "tst_serve_options.moc"
