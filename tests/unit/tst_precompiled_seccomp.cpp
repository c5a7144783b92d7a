// The filters compiled at build time must be exactly what the translator makes at run time, and a
// profile that skips a row must get a filter compiled for it, not the precompiled default.

#include "sandbox/policy/PrecompiledSeccomp.h"

#include <QtTest>

using namespace warren::sandbox;

class TestPrecompiledSeccomp : public QObject {
    Q_OBJECT
private slots:
    void matchesTheTranslator_data() {
        QTest::addColumn<bool>("networkDenied");
        QTest::newRow("network denied") << true;
        QTest::newRow("network allowed") << false;
    }

    void matchesTheTranslator() {
        QFETCH(bool, networkDenied);
        SeccompOptions options;
        options.networkDenied = networkDenied;
        auto compiled = SeccompPolicy::builtIn().compileBpf(options);
        QVERIFY(compiled.ok());
        auto chosen = seccompFilterFor(options);
        QVERIFY(chosen.ok());
        QVERIFY(!chosen->empty());
        QVERIFY(*chosen == *compiled);
    }

    void networkPoliciesDiffer() {
        QVERIFY(kPrecompiledFilterNetworkDenied != kPrecompiledFilterNetworkAllowed);
    }

    void skippedRowIsCompiledAtLaunch() {
        SeccompOptions options;
        options.skip = {"ptrace"};
        auto chosen = seccompFilterFor(options);
        QVERIFY(chosen.ok());
        auto compiled = SeccompPolicy::builtIn().compileBpf(options);
        QVERIFY(compiled.ok());
        QVERIFY(*chosen == *compiled);
        const std::string_view precompiled = kPrecompiledFilterNetworkDenied;
        QVERIFY(std::string_view(reinterpret_cast<const char*>(chosen->data()), chosen->size()) != precompiled);
    }

    void unknownSkippedRowIsAnError() {
        SeccompOptions options;
        options.skip = {"no-such-row"};
        QVERIFY(!seccompFilterFor(options).ok());
    }
};

QTEST_GUILESS_MAIN(TestPrecompiledSeccomp)
#include "tst_precompiled_seccomp.moc"
