// What the model reads of a tool's output: within a token budget, head and tail kept at line ends, the cut
// marked with what was left out and how to ask for less, UTF-8 never split.

#include "agent_core/context/OutputBudget.h"
#include "agent_core/context/TokenEstimate.h"

#include <QtTest>

using namespace warren::agent;

namespace {

std::string numberedLines(int count) {
    std::string out;
    for (int i = 1; i <= count; ++i)
        out += "line " + std::to_string(i) + "\n";
    return out;
}

} // namespace

class TestOutputBudget : public QObject {
    Q_OBJECT

private slots:
    void fits_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<quint64>("budget");
        QTest::addColumn<bool>("cut");
        QTest::newRow("empty") << QByteArray() << quint64(64) << false;
        QTest::newRow("exactly the budget") << QByteArray(256, 'a') << quint64(64) << false;
        QTest::newRow("one byte over") << QByteArray(257, 'a') << quint64(64) << true;
        QTest::newRow("many lines") << QByteArray::fromStdString(numberedLines(2000)) << quint64(100) << true;
    }
    void fits() {
        QFETCH(QByteArray, text);
        QFETCH(quint64, budget);
        QFETCH(bool, cut);
        const FittedOutput fitted = fitToBudget(text.toStdString(), budget, "HINT");
        QCOMPARE(fitted.cut, cut);
        if (!cut) {
            QCOMPARE(QByteArray::fromStdString(fitted.text), text);
            return;
        }
        // Head and tail within the budget, the marker on top of it.
        const auto marker = fitted.text.find("[... ");
        QVERIFY(marker != std::string::npos);
        const auto markerEnd = fitted.text.find(" ...]\n", marker) + 6;
        QVERIFY(fitted.text.size() - (markerEnd - marker) <= budget * kBytesPerToken + 1);
        QVERIFY(fitted.text.find("HINT") != std::string::npos);
        // What is kept is the start and the end of the text.
        const std::string head = fitted.text.substr(0, marker);
        const std::string tail = fitted.text.substr(markerEnd);
        QVERIFY(text.toStdString().starts_with(head.substr(0, head.size() - 1)));
        QVERIFY(text.toStdString().ends_with(tail));
    }

    void cutsAtLineEndsAndCountsWhatIsLeftOut() {
        const std::string text = numberedLines(2000); // "line 1\n" .. "line 2000\n"
        const FittedOutput fitted = fitToBudget(text, 100, "narrow it");
        QVERIFY(fitted.cut);
        QVERIFY(fitted.text.starts_with("line 1\nline 2\n"));
        QVERIFY(fitted.text.ends_with("line 1999\nline 2000\n"));
        // Whole lines on both sides of the marker.
        const auto marker = fitted.text.find("\n[... ");
        QVERIFY(marker != std::string::npos);
        QVERIFY(fitted.text.find(" ...]\nline ", marker) != std::string::npos);
        const std::string expected = "[... " + std::to_string(fitted.cutLines) + " lines (about " +
                                     std::to_string(fitted.cutTokens) + " tokens) cut. narrow it ...]";
        QVERIFY2(fitted.text.find(expected) != std::string::npos, fitted.text.c_str());
        // The lines kept and the lines cut add up.
        const auto keptLines = std::count(fitted.text.begin(), fitted.text.end(), '\n') - 1;
        QCOMPARE(std::uint64_t(keptLines) + fitted.cutLines, std::uint64_t{2000});
    }

    void neverSplitsACharacter() {
        std::string text;
        for (int i = 0; i < 400; ++i)
            text += "\xC3\xA9\xE2\x82\xAC"; // é€, no newline to cut at
        const FittedOutput fitted = fitToBudget(text, 64, "h");
        QVERIFY(fitted.cut);
        const auto marker = fitted.text.find("[... ");
        const std::string head = fitted.text.substr(0, marker - 1); // without the newline before the marker
        const std::string tail = fitted.text.substr(fitted.text.find(" ...]\n") + 6);
        QVERIFY(head.size() % 5 == 0 || head.size() % 5 == 2);
        QVERIFY(tail.starts_with("\xC3\xA9") || tail.starts_with("\xE2\x82\xAC"));
    }

    void hintsNameTheToolsOwnWays_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("hint");
        QTest::newRow("shell") << "shell" << "pipe it through head, tail or grep";
        QTest::newRow("read_file") << "read_file" << "offset and limit";
        QTest::newRow("search") << "search" << "a path or a glob";
        QTest::newRow("list_files") << "list_files" << "subdirectory";
        QTest::newRow("another tool") << "memory_load" << "Ask for less";
    }
    void hintsNameTheToolsOwnWays() {
        QFETCH(QString, tool);
        QFETCH(QString, hint);
        QVERIFY(QString::fromStdString(narrowingHint(tool.toStdString())).contains(hint));
    }
};

QTEST_APPLESS_MAIN(TestOutputBudget)
#include "tst_output_budget.moc"
