// PodTokens: the digests of the tokens a cluster task's pods hold, kept in the shared data directory for the
// replica that takes the task over. Read strictly (a line that is not "<64 lowercase hex> <ms>" is skipped,
// so a damaged file grants nothing), pruned of the expired, bounded to the newest, and written whole.

#include "app/tasks/PodTokens.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;

class TestPodTokens : public QObject {
    Q_OBJECT
private slots:
    void aDigestIsTheTokensSha256InHex();
    void readBackAsWritten();
    void badLinesAreSkipped();
    void theExpiredGoAndTheNewestStay();
    void keptInTheTasksDirectoryUntilForgotten();
};

void TestPodTokens::aDigestIsTheTokensSha256InHex() {
    QCOMPARE(QString::fromStdString(podTokenDigest("abc")),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

void TestPodTokens::readBackAsWritten() {
    const std::vector<PodToken> tokens{{podTokenDigest("a"), 1000}, {podTokenDigest("b"), 2000}};
    QCOMPARE(parsePodTokens(formatPodTokens(tokens)), tokens);
    QVERIFY(parsePodTokens("").empty());
}

void TestPodTokens::badLinesAreSkipped() {
    const std::string good = podTokenDigest("a");
    std::string upper = good;
    for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string text = good.substr(1) + " 5\n" + upper + " 5\n" + good + " \n" + good + " 5x\n" + good +
                             "  5\n" + good + "\n" + good + " -5 6\n" + good + " 99999999999999999999999\n" +
                             good + " 7";
    QCOMPARE(parsePodTokens(text), (std::vector<PodToken>{{good, 7}}));
}

void TestPodTokens::theExpiredGoAndTheNewestStay() {
    std::vector<PodToken> tokens;
    for (int i = 0; i < 20; ++i)
        tokens = keptPodTokens(tokens, {podTokenDigest(std::to_string(i)), 100 + i}, 0);
    QCOMPARE(tokens.size(), kMaxPodTokens);
    QCOMPARE(tokens.back(), (PodToken{podTokenDigest("19"), 119}));
    QCOMPARE(tokens.front(), (PodToken{podTokenDigest(std::to_string(20 - kMaxPodTokens)),
                                       static_cast<std::int64_t>(100 + 20 - kMaxPodTokens)}));
    // At 115, those expiring by then are gone; the added one is kept once, even if it was there.
    tokens = keptPodTokens(tokens, {podTokenDigest("19"), 119}, 115);
    QCOMPARE(tokens, (std::vector<PodToken>{{podTokenDigest("16"), 116},
                                            {podTokenDigest("17"), 117},
                                            {podTokenDigest("18"), 118},
                                            {podTokenDigest("19"), 119}}));
}

void TestPodTokens::keptInTheTasksDirectoryUntilForgotten() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DataDir data;
    data.root = dir.path().toStdString();
    QVERIFY(readPodTokens(data, "t-1").empty());
    const std::vector<PodToken> tokens{{podTokenDigest("a"), 1000}};
    QVERIFY(keepPodTokens(data, "t-1", tokens));
    QCOMPARE(readPodTokens(data, "t-1"), tokens);
    QVERIFY(readPodTokens(data, "t-2").empty());
    forgetPodTokens(data, "t-1");
    QVERIFY(readPodTokens(data, "t-1").empty());
}

QTEST_GUILESS_MAIN(TestPodTokens)
#include "tst_pod_tokens.moc"
