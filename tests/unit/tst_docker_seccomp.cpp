// DockerSeccomp: the seccomp table as a Docker/OCI profile. Every expectation is derived from the same
// SeccompPolicy the BPF filter is compiled from, so a row added to the table is checked here without a
// test change, and the profile can never say something the table does not.

#include "sandbox/policy/DockerSeccomp.h"

#include <QtTest>
#include <nlohmann/json.hpp>
#include <seccomp.h>

using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

json render(const SeccompPolicy& policy, const SeccompOptions& options) {
    auto profile = renderDockerSeccomp(policy, options);
    if (!profile)
        qFatal("renderDockerSeccomp failed: %s", profile.error().message.c_str());
    return json::parse(profile->json);
}

// The names compileBpf() adds for a rule: those that are system calls of this architecture, or that
// libseccomp does not know (newer calls, which the BPF filter adds by number).
json expectedNames(const SeccompRule& rule) {
    json names = json::array();
    for (const auto& name : rule.syscalls) {
        const int number = seccomp_syscall_resolve_name(name.c_str());
        if (number >= 0 || number == __NR_SCMP_ERROR)
            names.push_back(name);
    }
    return names;
}

json expectedEntry(const SeccompRule& rule, const std::vector<SeccompArgMatch>& alternative) {
    json entry = {{"names", expectedNames(rule)}, {"comment", rule.id}};
    if (rule.action == SeccompRule::Action::Kill) {
        entry["action"] = "SCMP_ACT_KILL_PROCESS";
    } else {
        entry["action"] = "SCMP_ACT_ERRNO";
        entry["errnoRet"] = rule.errnoValue;
    }
    if (!alternative.empty()) {
        entry["args"] = json::array();
        for (const auto& match : alternative)
            entry["args"].push_back(
                {{"index", match.index}, {"value", match.mask}, {"valueTwo", match.value}, {"op", "SCMP_CMP_MASKED_EQ"}});
    }
    return entry;
}

json entriesOf(const json& profile, const std::string& id) {
    json entries = json::array();
    for (const auto& entry : profile["syscalls"])
        if (entry.value("comment", "") == id)
            entries.push_back(entry);
    return entries;
}

const SeccompRule& builtInRule(const std::string& id) {
    for (const auto& rule : SeccompPolicy::builtIn().rules())
        if (rule.id == id)
            return rule;
    qFatal("no rule %s", id.c_str());
}

std::string nativeArchitecture() {
    return seccomp_arch_native() == SCMP_ARCH_AARCH64 ? "SCMP_ARCH_AARCH64" : "SCMP_ARCH_X86_64";
}

} // namespace

class TestDockerSeccomp : public QObject {
    Q_OBJECT

private slots:
    void everyRowRendered_data();
    void everyRowRendered();
    void entriesFollowTableOrder();
    void skippedRowIsAbsent();
    void unknownSkipFails();
    void documentShape();
    void stableOutput();
    void smallPolicyExactly();
    void differencesNameWhatARuntimeMayNotFilter();
};

void TestDockerSeccomp::everyRowRendered_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("networkDenied");
    for (const auto& rule : SeccompPolicy::builtIn().rules()) {
        QTest::newRow(("network none: " + rule.id).c_str()) << qs(rule.id) << true;
        QTest::newRow(("network loopback: " + rule.id).c_str()) << qs(rule.id) << false;
    }
}

// Each alternative of each active row is one entry, with the row's action, errno and exact comparisons;
// a network-denied row is absent when the network is allowed, as compileBpf() leaves it out.
void TestDockerSeccomp::everyRowRendered() {
    QFETCH(QString, id);
    QFETCH(bool, networkDenied);
    const SeccompRule& rule = builtInRule(id.toStdString());
    SeccompOptions options;
    options.networkDenied = networkDenied;
    const json profile = render(SeccompPolicy::builtIn(), options);

    json expected = json::array();
    const bool active = rule.when == SeccompRule::When::Always || networkDenied;
    if (active && !expectedNames(rule).empty())
        for (const auto& alternative : rule.alternatives)
            expected.push_back(expectedEntry(rule, alternative));
    const json actual = entriesOf(profile, rule.id);
    QCOMPARE(qs(actual.dump()), qs(expected.dump()));
}

void TestDockerSeccomp::entriesFollowTableOrder() {
    // libseccomp resolves overlapping rules of one syscall by the order they are added; the runtime adds
    // entries in profile order, so the profile keeps the table's order, as compileBpf() does.
    const json profile = render(SeccompPolicy::builtIn(), {});
    std::vector<std::string> seen;
    for (const auto& entry : profile["syscalls"])
        if (seen.empty() || seen.back() != entry["comment"].get<std::string>())
            seen.push_back(entry["comment"].get<std::string>());
    std::vector<std::string> table;
    for (const auto& rule : SeccompPolicy::builtIn().rules())
        if (std::find(seen.begin(), seen.end(), rule.id) != seen.end())
            table.push_back(rule.id);
    QCOMPARE(seen, table);
    std::size_t alternatives = 0;
    for (const auto& rule : SeccompPolicy::builtIn().rules())
        if (!expectedNames(rule).empty())
            alternatives += rule.alternatives.size();
    QCOMPARE(profile["syscalls"].size(), alternatives);
}

void TestDockerSeccomp::skippedRowIsAbsent() {
    const std::string id = SeccompPolicy::builtIn().rules().front().id;
    SeccompOptions options;
    options.skip = {id};
    const json profile = render(SeccompPolicy::builtIn(), options);
    QVERIFY(entriesOf(profile, id).empty());
    const std::string other = SeccompPolicy::builtIn().rules().back().id;
    QVERIFY(!entriesOf(profile, other).empty());
}

void TestDockerSeccomp::unknownSkipFails() {
    SeccompOptions options;
    options.skip = {"no-such-row"};
    const auto profile = renderDockerSeccomp(SeccompPolicy::builtIn(), options);
    QVERIFY(!profile);
    QCOMPARE(profile.error().code, ErrorCode::InvalidArgument);
    QVERIFY(profile.error().message.find("\"no-such-row\"") != std::string::npos);
}

// Default allow, like the BPF filter; only the native architecture, so libseccomp sends i386 and x32
// calls to its bad-architecture action instead of letting them pass under other syscall numbers.
void TestDockerSeccomp::documentShape() {
    const json profile = render(SeccompPolicy::builtIn(), {});
    QCOMPARE(qs(profile["defaultAction"].get<std::string>()), QString("SCMP_ACT_ALLOW"));
    QCOMPARE(qs(profile["architectures"].dump()), qs(json::array({nativeArchitecture()}).dump()));
    QVERIFY(!profile.contains("archMap"));
    QVERIFY(!profile.contains("defaultErrnoRet"));
    QCOMPARE(profile.size(), std::size_t{3});
    for (const auto& entry : profile["syscalls"]) {
        const std::string action = entry["action"];
        QVERIFY2(action == "SCMP_ACT_ERRNO" || action == "SCMP_ACT_KILL_PROCESS", action.c_str());
        QCOMPARE(entry.contains("errnoRet"), action == "SCMP_ACT_ERRNO");
        for (const auto& arg : entry.value("args", json::array()))
            QCOMPARE(qs(arg["op"].get<std::string>()), QString("SCMP_CMP_MASKED_EQ"));
    }
}

void TestDockerSeccomp::stableOutput() {
    const auto first = renderDockerSeccomp(SeccompPolicy::builtIn(), {});
    const auto second = renderDockerSeccomp(SeccompPolicy::builtIn(), {});
    QVERIFY(first && second);
    QCOMPARE(qs(first->json), qs(second->json));
    QVERIFY(first->json.back() == '\n');
}

// A policy built in code, checked against the whole document: kill rows, errno values and a not_in
// condition, whose expansion yields several entries.
void TestDockerSeccomp::smallPolicyExactly() {
    SeccompRule kill;
    kill.id = "kill-kexec";
    kill.syscalls = {"kexec_load"};
    kill.action = SeccompRule::Action::Kill;
    kill.reason = "test";
    SeccompRule errnoRow;
    errnoRow.id = "socket-not-unix";
    errnoRow.syscalls = {"socket", "socketpair"};
    errnoRow.errnoValue = 97; // EAFNOSUPPORT
    errnoRow.when = SeccompRule::When::NetworkDenied;
    errnoRow.conditions = {{0, SeccompCondition::Op::NotIn, 0x3, {1}}};
    errnoRow.reason = "test";
    auto policy = SeccompPolicy::fromRules({kill, errnoRow});
    QVERIFY(policy);

    auto masked = [](unsigned index, std::uint64_t mask, std::uint64_t value) {
        return json{{"index", index}, {"value", mask}, {"valueTwo", value}, {"op", "SCMP_CMP_MASKED_EQ"}};
    };
    auto errnoEntry = [&](const json& arg) {
        return json{{"names", {"socket", "socketpair"}}, {"comment", "socket-not-unix"},
                    {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", 97}, {"args", json::array({arg})}};
    };
    // not_in {1} under mask 0b11: the values 0, 2 and 3, as the trie walk finds them (0b00, then 0b1x).
    const json expected = {
        {"defaultAction", "SCMP_ACT_ALLOW"},
        {"architectures", {nativeArchitecture()}},
        {"syscalls",
         {{{"names", {"kexec_load"}}, {"comment", "kill-kexec"}, {"action", "SCMP_ACT_KILL_PROCESS"}},
          errnoEntry(masked(0, 0x2, 0x2)), errnoEntry(masked(0, 0x3, 0x0))}}};
    const json actual = render(*policy, {});
    // The trie's order is the expansion's business; compare as sets of entries.
    auto sorted = [](json document) {
        std::sort(document["syscalls"].begin(), document["syscalls"].end(),
                  [](const json& x, const json& y) { return x.dump() < y.dump(); });
        return document;
    };
    QCOMPARE(qs(sorted(actual).dump()), qs(sorted(expected).dump()));

    SeccompOptions loopback;
    loopback.networkDenied = false;
    QCOMPARE(render(*policy, loopback)["syscalls"].size(), std::size_t{1});
}

void TestDockerSeccomp::differencesNameWhatARuntimeMayNotFilter() {
    const auto profile = renderDockerSeccomp(SeccompPolicy::builtIn(), {});
    QVERIFY(profile);
    auto mentions = [&](const std::string& word) {
        return std::any_of(profile->differences.begin(), profile->differences.end(),
                           [&](const std::string& line) { return line.find(word) != std::string::npos; });
    };
    QVERIFY(mentions("foreign architecture"));
    for (const auto& rule : SeccompPolicy::builtIn().rules())
        for (const auto& name : rule.syscalls)
            QCOMPARE(mentions(name + " (rule " + rule.id + ")"),
                     seccomp_syscall_resolve_name(name.c_str()) == __NR_SCMP_ERROR);
}

QTEST_GUILESS_MAIN(TestDockerSeccomp)
#include "tst_docker_seccomp.moc"
