// Quota and request limits: reading them strictly, the per-limit minimum over request, user and tenant
// with the level that decided it, the event a reader sees, and the sandbox limits that result.

#include "server/accounts/Limits.h"

#include <QtTest>

using namespace warren::accounts;
using nlohmann::json;

Q_DECLARE_METATYPE(std::optional<std::uint64_t>)

namespace {

using Opt = std::optional<std::uint64_t>;

Limits one(LimitName name, Opt value) {
    Limits limits;
    limits.set(name, value);
    return limits;
}

} // namespace

class TestLimits : public QObject {
    Q_OBJECT

private slots:
    void effective_data();
    void effective();
    void everyLimitIsDecidedOnItsOwn();
    void eventNamesEveryLimitAndEveryLevel();
    void fromJson_data();
    void fromJson();
    void toJsonRoundTrips();
    void appliedToSandbox();
};

void TestLimits::effective_data() {
    QTest::addColumn<Opt>("request");
    QTest::addColumn<Opt>("user");
    QTest::addColumn<Opt>("tenant");
    QTest::addColumn<Opt>("value");
    QTest::addColumn<QString>("decidedBy");
    const Opt unset;
    QTest::newRow("nothing-set") << unset << unset << unset << unset << "none";
    QTest::newRow("request-only") << Opt(512) << unset << unset << Opt(512) << "request";
    QTest::newRow("user-only") << unset << Opt(256) << unset << Opt(256) << "user";
    QTest::newRow("tenant-only") << unset << unset << Opt(1024) << Opt(1024) << "tenant";
    QTest::newRow("request-under-quotas") << Opt(100) << Opt(200) << Opt(300) << Opt(100) << "request";
    QTest::newRow("request-over-tenant") << Opt(4096) << unset << Opt(1024) << Opt(1024) << "tenant";
    QTest::newRow("user-narrows-tenant") << Opt(4096) << Opt(512) << Opt(1024) << Opt(512) << "user";
    QTest::newRow("user-cannot-lift-tenant") << Opt(4096) << Opt(2048) << Opt(1024) << Opt(1024) << "tenant";
    QTest::newRow("user-unset-tenant-binds") << unset << unset << Opt(64) << Opt(64) << "tenant";
    QTest::newRow("tie-request-user") << Opt(512) << Opt(512) << Opt(1024) << Opt(512) << "request";
    QTest::newRow("tie-user-tenant") << unset << Opt(512) << Opt(512) << Opt(512) << "user";
    QTest::newRow("one") << Opt(1) << Opt(2) << Opt(3) << Opt(1) << "request";
}

void TestLimits::effective() {
    QFETCH(Opt, request);
    QFETCH(Opt, user);
    QFETCH(Opt, tenant);
    QFETCH(Opt, value);
    QFETCH(QString, decidedBy);
    const auto name = LimitName::MemoryMb;
    const EffectiveLimits effective = effectiveLimits(one(name, request), one(name, user), one(name, tenant));
    QCOMPARE(effective.get(name).value, value);
    QCOMPARE(QString::fromUtf8(limitLevelName(effective.get(name).decidedBy).data()), decidedBy);
}

void TestLimits::everyLimitIsDecidedOnItsOwn() {
    Limits request, user, tenant;
    request.set(LimitName::MemoryMb, 100);
    user.set(LimitName::Pids, 10);
    tenant.set(LimitName::MemoryMb, 50);
    tenant.set(LimitName::MaxConcurrent, 0);
    const EffectiveLimits effective = effectiveLimits(request, user, tenant);
    QCOMPARE(effective.get(LimitName::MemoryMb).value, Opt(50));
    QCOMPARE(effective.get(LimitName::MemoryMb).decidedBy, LimitLevel::Tenant);
    QCOMPARE(effective.get(LimitName::Pids).value, Opt(10));
    QCOMPARE(effective.get(LimitName::Pids).decidedBy, LimitLevel::User);
    QCOMPARE(effective.get(LimitName::MaxConcurrent).value, Opt(0));
    QCOMPARE(effective.get(LimitName::TimeoutSec).value, Opt());
    QCOMPARE(effective.get(LimitName::TimeoutSec).decidedBy, LimitLevel::None);
}

void TestLimits::eventNamesEveryLimitAndEveryLevel() {
    const EffectiveLimits effective =
        effectiveLimits(one(LimitName::MemoryMb, 1024), Limits(), one(LimitName::MemoryMb, 512));
    const json event = effectiveLimitsToJson(effective);
    QCOMPARE(event.size(), kLimitCount);
    for (const LimitInfo& info : allLimits())
        QVERIFY2(event.contains(std::string(info.key)), info.key.data());
    const json expected = {
        {"value", 512}, {"decided_by", "tenant"}, {"request", 1024}, {"user", nullptr}, {"tenant", 512}};
    QCOMPARE(QString::fromStdString(event["memory_mb"].dump()), QString::fromStdString(expected.dump()));
    QCOMPARE(QString::fromStdString(event["pids"]["decided_by"].get<std::string>()), QStringLiteral("none"));
    QVERIFY(event["pids"]["value"].is_null());
}

void TestLimits::fromJson_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("quota");
    QTest::addColumn<QString>("error"); // empty: accepted
    QTest::newRow("empty") << "{}" << false << "";
    QTest::newRow("request-sandbox-limits")
        << R"({"memory_mb":512,"pids":64,"cpu_seconds":60,"timeout_sec":600,"file_size_mb":100})" << false
        << "";
    QTest::newRow("null-is-unset") << R"({"memory_mb":null})" << false << "";
    QTest::newRow("quota-all") << R"({"max_concurrent":0,"tokens_per_month":0,"memory_mb":1})" << true << "";
    QTest::newRow("request-max-concurrent")
        << R"({"max_concurrent":2})" << false << "limits.max_concurrent: not a limit a task may ask for";
    QTest::newRow("request-tokens") << R"({"tokens_per_month":2})" << false
                                    << "limits.tokens_per_month: not a limit a task may ask for";
    QTest::newRow("unknown-key") << R"({"memory":512})" << true << "limits.memory: not a limit of a quota";
    QTest::newRow("zero-memory") << R"({"memory_mb":0})" << false
                                 << "must be a whole number from 1 to 9223372036854775807, got 0";
    QTest::newRow("zero-pids-quota") << R"({"pids":0})" << true << "leave it unset";
    QTest::newRow("idle-sleep-quota") << R"({"idle_sleep_sec":60})" << true << "";
    // 0 would read as "never" to the control plane, lifting the limit it sets.
    QTest::newRow("zero-idle-sleep-quota") << R"({"idle_sleep_sec":0})" << true << "leave it unset";
    QTest::newRow("request-idle-sleep") << R"({"idle_sleep_sec":60})" << false
                                        << "limits.idle_sleep_sec: not a limit a task may ask for";
    QTest::newRow("too-large") << R"({"pids":9223372036854775808})" << true << "got 9223372036854775808";
    QTest::newRow("negative") << R"({"pids":-1})" << false << "must be a whole number or null";
    QTest::newRow("fraction") << R"({"pids":1.5})" << false << "must be a whole number or null";
    QTest::newRow("string") << R"({"pids":"64"})" << false << "must be a whole number or null";
    QTest::newRow("not-object") << R"([1])" << false << "limits";
}

void TestLimits::fromJson() {
    QFETCH(QString, text);
    QFETCH(bool, quota);
    QFETCH(QString, error);
    const auto limits = limitsFromJson(json::parse(text.toStdString()),
                                       quota ? LimitsScope::Quota : LimitsScope::Request, "limits");
    if (error.isEmpty()) {
        QVERIFY2(limits.ok(), limits.ok() ? "" : limits.error().message.c_str());
        return;
    }
    QVERIFY(!limits.ok());
    QVERIFY2(QString::fromStdString(limits.error().message).contains(error), limits.error().message.c_str());
}

void TestLimits::toJsonRoundTrips() {
    Limits limits;
    limits.set(LimitName::MaxConcurrent, 3);
    limits.set(LimitName::FileSizeMb, 10);
    const json object = limitsToJson(limits);
    QCOMPARE(object.size(), kLimitCount);
    QVERIFY(object["memory_mb"].is_null());
    const auto back = limitsFromJson(object, LimitsScope::Quota, "limits");
    QVERIFY(back.ok());
    QVERIFY(*back == limits);
}

void TestLimits::appliedToSandbox() {
    warren::sandbox::SandboxLimits profile;
    profile.memoryMb = 4096;
    profile.pids = 256;
    profile.openFiles = 1024;
    Limits tenant;
    tenant.set(LimitName::MemoryMb, 512);
    tenant.set(LimitName::TimeoutSec, 60);
    tenant.set(LimitName::MaxConcurrent, 1);
    const auto limits = applyToSandbox(effectiveLimits(Limits(), Limits(), tenant), profile);
    QCOMPARE(limits.memoryMb, std::uint64_t{512});
    QCOMPARE(limits.timeoutSec, std::uint64_t{60});
    QCOMPARE(limits.pids, std::uint64_t{256});       // no level sets it: the profile's
    QCOMPARE(limits.openFiles, std::uint64_t{1024}); // not a quota's limit at all
    QCOMPARE(limits.cpuSeconds, std::uint64_t{0});
}

QTEST_GUILESS_MAIN(TestLimits)
#include "tst_limits.moc"
