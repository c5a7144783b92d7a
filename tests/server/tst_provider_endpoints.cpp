// ProviderEndpoints: which provider endpoints warrend's server-wide keys go to (the hosted services' own
// URLs and the operator's --provider, however the URL is spelled), and which endpoints a user may name at
// task creation (none inside the server's host or networks, unless the operator allows it).

#include "server/api/ProviderEndpoints.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;
using namespace warren::server;

namespace {

ProviderConfig spec(const QString& text) {
    auto parsed = parseProviderSpec(text.toStdString(), "m");
    return parsed ? *parsed : ProviderConfig{};
}

} // namespace

class TestProviderEndpoints : public QObject {
    Q_OBJECT

private slots:
    void serverKeysGoOnlyWhereTheOperatorSaid_data() {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("operatorSpec");
        QTest::addColumn<bool>("operators");
        QTest::newRow("openai") << "openai"
                                << "" << true;
        QTest::newRow("anthropic") << "anthropic"
                                   << "" << true;
        QTest::newRow("openrouter") << "openrouter"
                                    << "" << true;
        QTest::newRow("anthropic's own URL by hand") << "anthropic:https://API.anthropic.com:443/"
                                                     << "" << true;
        QTest::newRow("anthropic key, a user's URL") << "anthropic:http://127.0.0.1:9"
                                                     << "" << false;
        QTest::newRow("anthropic key, a public-looking URL")
            << "anthropic:https://api.anthropic.com.evil.example"
            << "" << false;
        QTest::newRow("userinfo trick") << "anthropic:https://api.anthropic.com@evil.example"
                                        << "" << false;
        QTest::newRow("openai's URL, compatible key") << "openai-compatible:https://api.openai.com/v1"
                                                      << "" << false;
        QTest::newRow("compatible, no operator endpoint") << "openai-compatible:https://llm.example/v1"
                                                          << "" << false;
        QTest::newRow("compatible, the operator's") << "openai-compatible:https://llm.example/v1/"
                                                    << "openai-compatible:https://llm.example/v1" << true;
        QTest::newRow("compatible, another path") << "openai-compatible:https://llm.example/v2"
                                                  << "openai-compatible:https://llm.example/v1" << false;
        QTest::newRow("compatible, another port") << "openai-compatible:https://llm.example:8443/v1"
                                                  << "openai-compatible:https://llm.example/v1" << false;
        QTest::newRow("anthropic kind at the compatible URL")
            << "anthropic:https://llm.example/v1"
            << "openai-compatible:https://llm.example/v1" << false;
        QTest::newRow("ollama, a user's choice") << "ollama"
                                                 << "" << false;
        QTest::newRow("ollama, the operator's") << "ollama"
                                                << "ollama" << true;
        QTest::newRow("vllm while the operator runs ollama") << "vllm"
                                                             << "ollama" << false;
    }
    void serverKeysGoOnlyWhereTheOperatorSaid() {
        QFETCH(QString, task);
        QFETCH(QString, operatorSpec);
        QFETCH(bool, operators);
        QCOMPARE(isOperatorEndpoint(spec(task), operatorSpec.toStdString()), operators);
    }

    void usersNameNoEndpointInside_data() {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("allowed"); // --allow-internal
        QTest::addColumn<bool>("accepted");
        QTest::newRow("public name") << "openai-compatible:https://llm.example/v1"
                                     << "" << true;
        QTest::newRow("loopback") << "openai-compatible:http://127.0.0.1:8000/v1"
                                  << "" << false;
        QTest::newRow("anthropic at loopback") << "anthropic:http://127.0.0.1:9"
                                               << "" << false;
        QTest::newRow("localhost") << "anthropic:http://localhost:9"
                                   << "" << false;
        QTest::newRow("IPv6 loopback") << "anthropic:http://[::1]:9"
                                       << "" << false;
        QTest::newRow("mapped loopback") << "anthropic:http://[::ffff:127.0.0.1]:9"
                                         << "" << false;
        QTest::newRow("decimal loopback") << "anthropic:http://2130706433:9"
                                          << "" << false;
        QTest::newRow("metadata") << "openai-compatible:http://169.254.169.254/v1"
                                  << "" << false;
        QTest::newRow("private") << "openai-compatible:http://10.0.0.5/v1"
                                 << "" << false;
        QTest::newRow("ollama's loopback") << "ollama"
                                           << "" << false;
        QTest::newRow("allowed by the operator") << "openai-compatible:http://127.0.0.1:8000/v1"
                                                 << "127.0.0.1:8000" << true;
        QTest::newRow("localhost allowed as 127.0.0.1") << "anthropic:http://localhost:9"
                                                        << "127.0.0.1:9" << true;
        QTest::newRow("the operator's other port") << "openai-compatible:http://127.0.0.1:8000/v1"
                                                   << "127.0.0.1:8001" << false;
        QTest::newRow("hosted") << "anthropic"
                                << "" << true;
    }
    void usersNameNoEndpointInside() {
        QFETCH(QString, task);
        QFETCH(QString, allowed);
        QFETCH(bool, accepted);
        InsideAccess access{true, {}};
        if (!allowed.isEmpty())
            access.allowed = *parseInsideDestinations(allowed.toStdString());
        const Status checked = checkProviderEndpoint(spec(task), "", access);
        QCOMPARE(bool(checked), accepted);
        if (!accepted)
            QVERIFY2(checked.error().message.find("--allow-internal") != std::string::npos,
                     checked.error().message.c_str());
    }

    void theOperatorsEndpointMayBeInside() {
        const InsideAccess none{true, {}};
        QVERIFY(checkProviderEndpoint(spec("ollama"), "ollama", none));
        QVERIFY(checkProviderEndpoint(spec("openai-compatible:http://127.0.0.1:8000/v1"),
                                      "openai-compatible:http://127.0.0.1:8000/v1", none));
    }
};

QTEST_GUILESS_MAIN(TestProviderEndpoints)
#include "tst_provider_endpoints.moc"
