// The providers known by name (app/providers/ProviderCatalog): each entry is what parseProviderSpec makes of
// its name, so a face that shows an entry's address shows the one a task connects to; findProvider finds a
// URL form by its prefix.
#include "app/providers/ProviderCatalog.h"
#include "app/providers/ProviderConfig.h"

#include <QtTest>

using namespace warren::control;

class TestProviderCatalog : public QObject {
    Q_OBJECT
private slots:
    void everyNamedProviderIsWhatATaskConnectsTo() {
        for (const KnownProvider& provider : knownProviders()) {
            if (provider.takesUrl())
                continue;
            const auto config = parseProviderSpec(std::string(provider.spec), "m");
            QVERIFY2(config.ok(), std::string(provider.spec).c_str());
            QCOMPARE(config->baseUrl, std::string(provider.baseUrl));
            QCOMPARE(config->keyName, std::string(provider.keyName));
            QCOMPARE(config->kind, provider.kind);
        }
    }

    void everyUrlFormTakesItsExample() {
        for (const KnownProvider& provider : knownProviders()) {
            if (!provider.takesUrl())
                continue;
            const auto config =
                parseProviderSpec(std::string(provider.spec) + std::string(provider.baseUrl), "m");
            QVERIFY2(config.ok(), std::string(provider.spec).c_str());
            QCOMPARE(config->baseUrl, std::string(provider.baseUrl));
            QCOMPARE(config->keyName, std::string(provider.keyName));
        }
    }

    void findsTheEntry_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("entry"); // empty: none
        QTest::newRow("a name") << "ollama"
                                << "ollama";
        QTest::newRow("anthropic by name, not its URL form") << "anthropic"
                                                             << "anthropic";
        QTest::newRow("a URL form without its URL") << "openai-compatible:"
                                                    << "openai-compatible:";
        QTest::newRow("a URL form with its URL") << "anthropic:https://proxy.example"
                                                 << "anthropic:";
        QTest::newRow("a name with a suffix") << "ollama2"
                                              << "";
        QTest::newRow("scripted") << "scripted:/tmp/s.json"
                                  << "";
        QTest::newRow("none") << ""
                              << "";
    }
    void findsTheEntry() {
        QFETCH(QString, spec);
        QFETCH(QString, entry);
        const KnownProvider* found = findProvider(spec.toStdString());
        QCOMPARE(found ? QString::fromUtf8(found->spec.data(), qsizetype(found->spec.size())) : QString(),
                 entry);
    }

    void localServersNeedNoKey() {
        for (const char* local : {"ollama", "lmstudio", "vllm", "llamacpp"}) {
            QVERIFY(!findProvider(local)->needsKey());
            QVERIFY(std::string_view(findProvider(local)->baseUrl).starts_with("http://127.0.0.1:"));
        }
        QVERIFY(findProvider("openai")->needsKey());
        QVERIFY(findProvider("openai-compatible:http://x")->needsKey()); // as the engine asks for one
    }
};

QTEST_MAIN(TestProviderCatalog)
#include "tst_provider_catalog.moc"
