// compactHistory / shedHistory / estimateTokens: under the limit nothing changes; over it the outputs of
// old tool calls become stubs first, oldest first, and only when that is not enough the oldest turns
// become one summary of their tool calls (or a handoff summary the model wrote); the system and task
// messages and the latest messages stay; tool results are never separated from the assistant message
// that asked for them; a second compaction folds the first summary in; compress_history shortens old
// tool results; the result fits the limit whenever a cut can make it fit.

#include "agent_core/context/Compaction.h"
#include "agent_core/context/TokenEstimate.h"

#include <QtTest>
#include <set>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using warren::protocol::ChatMessage;
using warren::protocol::ToolCall;

namespace {

ChatMessage message(const std::string& role, const std::string& content) {
    return {role, content, {}, std::nullopt};
}

ChatMessage assistantCalls(const std::vector<std::string>& ids, const std::string& content = "") {
    ChatMessage out{"assistant", content, {}, std::nullopt};
    for (const auto& id : ids)
        out.toolCalls.push_back({id, "shell", json{{"command", "step " + id}}});
    return out;
}

ChatMessage toolResult(const std::string& id, const std::string& content) {
    return {"tool", content, {}, id};
}

std::string resultText(const std::string& id, std::size_t bytes) {
    std::string text = "out " + id + "\n";
    text.resize(std::max(bytes, text.size()), 'x');
    return text;
}

// system, task, then `turns` turns of one shell call each (ids 1..turns) answered by resultBytes of output.
std::vector<ChatMessage> conversation(int turns, std::size_t resultBytes, int firstId = 1) {
    std::vector<ChatMessage> messages;
    if (firstId == 1)
        messages = {message("system", "You are a coding agent."), message("user", "Make the tests pass.")};
    for (int i = firstId; i < firstId + turns; ++i) {
        const auto id = std::to_string(i);
        messages.push_back(assistantCalls({id}));
        messages.push_back(toolResult(id, resultText(id, resultBytes)));
    }
    return messages;
}

// "system", "user", "A 1", "A 1,2", "T 1", "summary 14", "assistant", one per message.
QStringList describe(const std::vector<ChatMessage>& messages) {
    QStringList out;
    for (const auto& m : messages) {
        if (isCompactionSummary(m)) {
            QRegularExpression count("compacted: (\\d+) message");
            out << "summary " + count.match(QString::fromStdString(m.content)).captured(1);
        } else if (m.role == "assistant" && !m.toolCalls.empty()) {
            QStringList ids;
            for (const auto& call : m.toolCalls)
                ids << QString::fromStdString(call.id);
            out << "A " + ids.join(",");
        } else if (isDroppedOutput(m)) {
            out << "D " + QString::fromStdString(m.toolCallId.value_or("?"));
        } else if (m.role == "tool") {
            out << "T " + QString::fromStdString(m.toolCallId.value_or("?"));
        } else {
            out << QString::fromStdString(m.role);
        }
    }
    return out;
}

// "A first", "<result> first", ... "A last", "<result> last": turns as describe() shows them.
QStringList turnsDescribed(int first, int last, const QString& result) {
    QStringList out;
    for (int i = first; i <= last; ++i)
        out << QString("A %1").arg(i) << QString("%1 %2").arg(result).arg(i);
    return out;
}

// What a model API would refuse: a tool message not answering a call of the assistant message just
// before it, or a call left unanswered.
QString pairingProblem(const std::vector<ChatMessage>& messages) {
    std::set<std::string> pending;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        if (m.role == "tool") {
            if (!m.toolCallId || pending.erase(*m.toolCallId) == 0)
                return QString("message %1: tool result without its call").arg(i);
            continue;
        }
        if (!pending.empty())
            return QString("message %1: calls before it are unanswered").arg(i);
        for (const auto& call : m.toolCalls)
            pending.insert(call.id);
    }
    return pending.empty() ? QString() : QString("the last calls are unanswered");
}

int summaryCount(const std::vector<ChatMessage>& messages) {
    return static_cast<int>(std::count_if(messages.begin(), messages.end(), isCompactionSummary));
}

} // namespace

class TestCompaction : public QObject {
    Q_OBJECT

private slots:
    void estimatesTokens_data() {
        QTest::addColumn<int>("index");
        QTest::addColumn<quint64>("tokens");
        // bytes / 4 rounded up, + 4 per message.
        QTest::newRow("user: 4 + 4 bytes") << 0 << quint64(2 + 4);
        QTest::newRow("user: 4 + 5 bytes rounds up") << 1 << quint64(3 + 4);
        QTest::newRow("empty system: 6 bytes") << 2 << quint64(2 + 4);
        // "assistant" 9 + id "c1" 2 + "shell" 5 + {"command":"ls"} 16 = 32 bytes.
        QTest::newRow("tool call's JSON counts") << 3 << quint64(8 + 4);
        // "tool" 4 + "ok" 2 + id "c1" 2 = 8 bytes.
        QTest::newRow("tool call id counts") << 4 << quint64(2 + 4);
    }

    void estimatesTokens() {
        QFETCH(int, index);
        QFETCH(quint64, tokens);
        const std::vector<ChatMessage> messages = {
            message("user", "abcd"), message("user", "abcde"), message("system", ""),
            ChatMessage{"assistant", "", {ToolCall{"c1", "shell", json{{"command", "ls"}}}}, std::nullopt},
            toolResult("c1", "ok")};
        QCOMPARE(estimateTokens(messages[static_cast<std::size_t>(index)]), tokens);
        QCOMPARE(estimateTokens(messages), quint64(6 + 7 + 6 + 12 + 6));
        QCOMPARE(estimateTokens(std::vector<ChatMessage>{}), quint64(0));
    }

    void compactsConversations_data() {
        QTest::addColumn<int>("turns");
        QTest::addColumn<int>("resultBytes");
        QTest::addColumn<int>("limit");
        QTest::addColumn<int>("keepRecent");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<int>("droppedOutputs");
        QTest::addColumn<int>("cutCount");

        QTest::newRow("under limit unchanged")
            << 3 << 100 << 100000 << 4
            << QStringList{"system", "user", "A 1", "T 1", "A 2", "T 2", "A 3", "T 3"} << 0 << 0;
        QTest::newRow("at limit unchanged")
            << 3 << 100 << int(estimateTokens(conversation(3, 100))) << 2
            << QStringList{"system", "user", "A 1", "T 1", "A 2", "T 2", "A 3", "T 3"} << 0 << 0;
        // Each turn is about 528 tokens, about 57 with its output dropped: dropping the oldest 7 outputs
        // is enough, no turn is cut.
        QTest::newRow("over limit drops the oldest outputs first")
            << 10 << 2000 << 2000 << 4
            << QStringList{"system", "user", "A 1", "D 1", "A 2", "D 2", "A 3", "D 3", "A 4", "D 4",
                           "A 5",    "D 5",  "A 6", "D 6", "A 7", "D 7", "A 8", "T 8", "A 9", "T 9",
                           "A 10",   "T 10"}
            << 7 << 0;
        // 40 turns: every old output dropped is still too much, so the oldest turns are cut as well.
        // 27 turns cut; the outputs of the 11 old turns kept stay dropped.
        QTest::newRow("dropping not enough: the oldest turns are cut")
            << 40 << 2000 << 2000 << 4
            << QStringList{"system", "user", "summary 54"} + turnsDescribed(28, 38, "D") + turnsDescribed(39, 40, "T")
            << 38 << 54;
        QTest::newRow("cuts only as many turns as needed")
            << 40 << 2000 << 2800 << 4
            << QStringList{"system", "user", "summary 20"} + turnsDescribed(11, 38, "D") + turnsDescribed(39, 40, "T")
            << 38 << 20;
        // The latest 3 messages start with a tool result: its assistant message is kept with it.
        QTest::newRow("keep extends to the turn boundary")
            << 10 << 2000 << 1000 << 3
            << QStringList{"system", "user", "summary 16", "A 9", "T 9", "A 10", "T 10"} << 8 << 16;
        // Nothing fits: everything between the task and the kept messages is cut, and the result is
        // over the limit (as small as it can be).
        QTest::newRow("impossible limit cuts all it may")
            << 10 << 2000 << 1000 << 4
            << QStringList{"system", "user", "summary 16", "A 9", "T 9", "A 10", "T 10"} << 8 << 16;
        QTest::newRow("keep covers everything")
            << 3 << 2000 << 1000 << 100
            << QStringList{"system", "user", "A 1", "T 1", "A 2", "T 2", "A 3", "T 3"} << 0 << 0;
    }

    void compactsConversations() {
        QFETCH(int, turns);
        QFETCH(int, resultBytes);
        QFETCH(int, limit);
        QFETCH(int, keepRecent);
        QFETCH(QStringList, expected);
        QFETCH(int, droppedOutputs);
        QFETCH(int, cutCount);
        const auto input = conversation(turns, std::size_t(resultBytes));
        const auto result = compactHistory(
            input, {std::uint64_t(limit), std::uint64_t(keepRecent), /*compressToolResults=*/false});
        QCOMPARE(describe(result.messages), expected);
        QCOMPARE(result.droppedOutputs, std::uint64_t(droppedOutputs));
        QCOMPARE(result.cutCount, std::uint64_t(cutCount));
        QCOMPARE(result.estimatedTokensBefore, estimateTokens(input));
        QCOMPARE(result.estimatedTokensAfter, estimateTokens(result.messages));
        QCOMPARE(pairingProblem(result.messages), QString());
        if (cutCount == 0 && droppedOutputs == 0)
            QVERIFY(result.messages == input);
    }

    void summaryListsCallsAndOutcomes() {
        auto input = conversation(4, 2000);
        input[3].content = "\n\n  error: no such file\nmore";
        input[4].content = "I will look around first.";
        input.push_back(message("user", "Loop warning: you repeated the same call."));
        const auto tail = conversation(2, 2000, 5);
        input.insert(input.end(), tail.begin(), tail.end());
        const auto result = compactHistory(input, {600, 2, false});
        QCOMPARE(describe(result.messages), (QStringList{"system", "user", "summary 11", "A 6", "T 6"}));
        QCOMPARE(
            QString::fromStdString(result.messages[2].content),
            "[Earlier conversation compacted: 11 messages cut. Summary: shell {\"command\":\"step 1\"} -> "
            "error: no such file; shell {\"command\":\"step 2\"} -> out 2; shell {\"command\":\"step 3\"} "
            "-> out 3; shell {\"command\":\"step 4\"} -> out 4; shell {\"command\":\"step 5\"} -> out 5]");
        QCOMPARE(result.messages[2].role, std::string("user"));
    }

    void droppedOutputNamesTheCall() {
        const auto input = conversation(4, 2000);
        const auto result = compactHistory(input, {1500, 2, false});
        QCOMPARE(result.cutCount, std::uint64_t(0));
        QCOMPARE(result.droppedOutputs, std::uint64_t(2));
        QCOMPARE(describe(result.messages),
                 (QStringList{"system", "user", "A 1", "D 1", "A 2", "D 2", "A 3", "T 3", "A 4", "T 4"}));
        QCOMPARE(result.messages[3].content,
                 std::string("[output dropped to save context: shell {\"command\":\"step 1\"} returned 2000 bytes; "
                             "the whole output is in the task's events (the tool_result of call 1)]"));
        QCOMPARE(result.messages[3].toolCallId, input[3].toolCallId);
        QVERIFY(result.estimatedTokensAfter <= 1500);
        QCOMPARE(result.estimatedTokensAfter, estimateTokens(result.messages));
        // A dropped output stays as it is: compacting again under the same limit changes nothing.
        QVERIFY(compactHistory(result.messages, {1500, 2, false}).messages == result.messages);
    }

    void shortOutputsAreNotDropped() {
        // Outputs shorter than their stub stay; the turns are cut instead.
        const auto input = conversation(30, 10);
        const auto result = compactHistory(input, {300, 2, false});
        QCOMPARE(result.droppedOutputs, std::uint64_t(0));
        QVERIFY(result.cutCount > 0);
        for (const auto& message : result.messages)
            QVERIFY(!isDroppedOutput(message));
    }

    void handoffSummaryFoldsLikeAMechanicalOne() {
        const auto handoff = handoffSummaryMessage(12, "## Goal\nMake the tests pass.\n## Done\nread a.txt");
        QVERIFY(isCompactionSummary(handoff));
        QCOMPARE(handoff.role, std::string("user"));
        QVERIFY(handoff.content.starts_with("[Earlier conversation compacted: 12 messages cut. Handoff summary:\n"
                                            "## Goal\n"));
        std::vector<ChatMessage> input = {message("system", "s"), message("user", "task"), handoff};
        const auto turns = conversation(20, 2000, 7);
        input.insert(input.end(), turns.begin(), turns.end());
        const auto result = compactHistory(input, {1500, 2, false});
        QCOMPARE(summaryCount(result.messages), 1);
        QCOMPARE(result.summaryIndex, std::size_t(2));
        QCOMPARE(result.summarisedMessages, 12 + result.cutCount);
        QCOMPARE(result.cutMessages.front(), handoff);
        const auto summary = QString::fromStdString(result.messages[2].content);
        QVERIFY2(summary.contains("## Goal\nMake the tests pass."), qPrintable(summary));
        QVERIFY2(summary.contains("shell {\"command\":\"step 7\"} -> out 7"), qPrintable(summary));
    }

    void summaryShortensLongArgumentsAndOutcomes() {
        auto input = conversation(3, 10);
        input[2].toolCalls[0].arguments = json{{"command", std::string(200, 'c')}};
        input[3].content = std::string(200, 'o');
        const auto result = compactHistory(input, {1, 2, false});
        QCOMPARE(result.cutCount, std::uint64_t(4));
        const auto summary = QString::fromStdString(result.messages[2].content);
        const QString arguments = QString("{\"command\":\"") + QString(200, 'c') + "\"}";
        QVERIFY2(summary.contains("shell " + arguments.left(80) + "... -> " + QString(80, 'o') + "...;"),
                 qPrintable(summary));
    }

    void summaryHasABound() {
        // 300 small turns and room for about 20: the summary of the hundreds cut keeps the latest calls
        // within its bound.
        const auto result = compactHistory(conversation(300, 20), {1000, 2, false});
        QVERIFY(result.cutCount >= 500);
        QCOMPARE(describe(result.messages).mid(0, 3),
                 (QStringList{"system", "user", QString("summary %1").arg(result.cutCount)}));
        const auto summary = QString::fromStdString(result.messages[2].content);
        QVERIFY2(summary.size() <= 1700, qPrintable(summary));
        QVERIFY2(summary.contains("Summary: ...; shell {\"command\":\"step "), qPrintable(summary));
        const auto latestCut = QString::number(result.cutCount / 2);
        QVERIFY2(summary.endsWith("shell {\"command\":\"step " + latestCut + "\"} -> out " + latestCut + "]"),
                 qPrintable(summary));
        QVERIFY(!summary.contains("\"step 1\""));
        QVERIFY(result.estimatedTokensAfter <= 1000);
        QCOMPARE(pairingProblem(result.messages), QString());
    }

    void repeatedCompactionKeepsOneSummary() {
        const auto first = compactHistory(conversation(30, 2000), {2000, 4, false});
        QCOMPARE(first.cutCount, std::uint64_t(30));
        QCOMPARE(describe(first.messages),
                 (QStringList{"system", "user", "summary 30"} + turnsDescribed(16, 28, "D") +
                  turnsDescribed(29, 30, "T")));
        auto grown = first.messages;
        const auto more = conversation(20, 2000, 31);
        grown.insert(grown.end(), more.begin(), more.end());

        const auto second = compactHistory(grown, {2000, 4, false});
        QCOMPARE(summaryCount(second.messages), 1);
        QCOMPARE(describe(second.messages),
                 (QStringList{"system", "user", "summary 80"} + turnsDescribed(41, 48, "D") +
                  turnsDescribed(49, 50, "T")));
        QCOMPARE(second.cutCount, std::uint64_t(50));
        QCOMPARE(second.summarisedMessages, std::uint64_t(80));
        // The earlier summary and the cut turns, as the input held them, for a model to summarise.
        QCOMPARE(second.cutMessages.size(), std::size_t(51));
        QCOMPARE(second.cutMessages.front(), grown[2]);
        QCOMPARE(second.cutMessages.back(), grown[52]);
        const auto summary = QString::fromStdString(second.messages[2].content);
        // Folded: the latest calls of both fit its bound, the oldest are left out.
        QVERIFY2(summary.contains("Summary: ...; shell {\"command\":\"step "), qPrintable(summary));
        QVERIFY2(summary.contains("shell {\"command\":\"step 28\"} -> (output dropped earlier); "
                                  "shell {\"command\":\"step 29\"} -> out 29; "),
                 qPrintable(summary));
        QVERIFY2(summary.endsWith("shell {\"command\":\"step 40\"} -> out 40]"), qPrintable(summary));
        QCOMPARE(pairingProblem(second.messages), QString());

        // Under the limit, a summary stays as it is.
        const auto third = compactHistory(second.messages, {100000, 4, false});
        QVERIFY(third.messages == second.messages);
        QCOMPARE(third.cutCount, std::uint64_t(0));
    }

    void parallelCallsStayWithTheirAssistant_data() {
        QTest::addColumn<int>("keepRecent");
        for (int keep = 2; keep <= 14; ++keep)
            QTest::newRow(qPrintable(QString("keep %1").arg(keep))) << keep;
    }

    // Turns with several calls and results, plain assistant text and user notes in between: every keep
    // and every limit gives a conversation a model API accepts, with the head and the latest messages.
    void parallelCallsStayWithTheirAssistant() {
        QFETCH(int, keepRecent);
        std::vector<ChatMessage> input = {message("system", "sys"), message("user", "task")};
        for (int turn = 0; turn < 6; ++turn) {
            const auto a = std::to_string(turn) + "a";
            const auto b = std::to_string(turn) + "b";
            const auto c = std::to_string(turn) + "c";
            input.push_back(assistantCalls({a, b, c}, "calling three"));
            for (const auto& id : {a, b, c})
                input.push_back(toolResult(id, resultText(id, 400)));
            if (turn % 2 == 1)
                input.push_back(message("assistant", "thinking out loud"));
            if (turn == 2)
                input.push_back(message("user", "Loop warning"));
        }
        const auto before = estimateTokens(input);
        for (std::uint64_t limit = 0; limit <= before + 10; limit += 37) {
            const auto options = CompactionOptions{limit, std::uint64_t(keepRecent), false};
            const auto result = compactHistory(input, options);
            const QString where = QString("limit %1").arg(limit);
            QVERIFY2(pairingProblem(result.messages).isEmpty(),
                     qPrintable(where + ": " + pairingProblem(result.messages)));
            QVERIFY2(result.messages[0] == input[0] && result.messages[1] == input[1], qPrintable(where));
            // The latest keepRecent messages are there, unchanged, at the end.
            const auto keep = std::size_t(keepRecent);
            QVERIFY(result.messages.size() >= keep);
            QVERIFY2(std::equal(input.end() - std::ptrdiff_t(keep), input.end(),
                                result.messages.end() - std::ptrdiff_t(keep)),
                     qPrintable(where));
            QCOMPARE(result.estimatedTokensAfter, estimateTokens(result.messages));
            QVERIFY(summaryCount(result.messages) <= 1);
            // Whenever even the smallest cut result fits, the result fits.
            const auto smallest = compactHistory(input, {0, std::uint64_t(keepRecent), false});
            if (smallest.estimatedTokensAfter <= limit)
                QVERIFY2(result.estimatedTokensAfter <= limit, qPrintable(where));
            if (before <= limit)
                QVERIFY(result.messages == input);
        }
    }

    void compressShortensOldToolResults() {
        const auto input = conversation(4, 1000);
        const auto result = compactHistory(input, {100000, 2, true});
        QCOMPARE(result.cutCount, std::uint64_t(0));
        QCOMPARE(describe(result.messages), describe(input));
        QCOMPARE(result.messages[3].content, std::string("out 1 [995 bytes elided]"));
        QCOMPARE(result.messages[5].content, std::string("out 2 [995 bytes elided]"));
        QCOMPARE(result.messages[7].content, std::string("out 3 [995 bytes elided]"));
        QCOMPARE(result.messages[9], input[9]); // recent: verbatim
        QCOMPARE(result.messages[8], input[8]);
        QVERIFY(result.estimatedTokensAfter < result.estimatedTokensBefore);
        // Compressing again changes nothing; without the option nothing changes at all.
        QVERIFY(compactHistory(result.messages, {100000, 2, true}).messages == result.messages);
        QVERIFY(compactHistory(input, {100000, 2, false}).messages == input);
    }

    void compressesOneToolResult_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QByteArray>("compressed");
        QTest::newRow("short line kept") << QByteArray("ok") << QByteArray("ok");
        QTest::newRow("256 bytes on one line kept") << QByteArray(256, 'x') << QByteArray(256, 'x');
        QTest::newRow("long line cut at 200 bytes")
            << QByteArray(1000, 'x') << QByteArray(200, 'x') + " [800 bytes elided]";
        QTest::newRow("first line of several")
            << QByteArray("exit 1\nline 2\n") << QByteArray("exit 1 [8 bytes elided]");
        QTest::newRow("trailing newline") << QByteArray("done\n") << QByteArray("done [1 bytes elided]");
        QTest::newRow("CRLF") << QByteArray("done\r\nmore") << QByteArray("done [6 bytes elided]");
        QTest::newRow("empty first line") << QByteArray("\nsecond") << QByteArray(" [7 bytes elided]");
        // 100 three-byte characters: the cut falls on a character boundary (198 bytes).
        QTest::newRow("UTF-8 not split") << QString(100, QChar(0x20AC)).toUtf8()
                                         << QString(66, QChar(0x20AC)).toUtf8() + " [102 bytes elided]";
    }

    void compressesOneToolResult() {
        QFETCH(QByteArray, content);
        QFETCH(QByteArray, compressed);
        std::vector<ChatMessage> input = {message("system", "s"), message("user", "u"),
                                          assistantCalls({"1"}),  toolResult("1", content.toStdString()),
                                          assistantCalls({"2"}),  toolResult("2", "recent")};
        const auto result = compactHistory(input, {100000, 2, true});
        QCOMPARE(QByteArray::fromStdString(result.messages[3].content), compressed);
    }

    void shedKeepsOnlyTheLatestTurn() {
        const auto input = conversation(6, 100);
        QVERIFY(estimateTokens(input) < 1000); // far under any limit: shedding cuts anyway
        const auto shed = shedHistory(input);
        QCOMPARE(describe(shed), (QStringList{"system", "user", "summary 10", "A 6", "T 6"}));
        QCOMPARE(pairingProblem(shed), QString());
        // Shedding a shed history folds, never stacks.
        auto grown = shed;
        const auto more = conversation(2, 100, 7);
        grown.insert(grown.end(), more.begin(), more.end());
        QCOMPARE(describe(shedHistory(grown)), (QStringList{"system", "user", "summary 14", "A 8", "T 8"}));
    }

    void withoutSystemMessageTheTaskStays() {
        auto input = conversation(6, 2000);
        input.erase(input.begin());
        const auto result = compactHistory(input, {600, 2, false});
        QCOMPARE(describe(result.messages), (QStringList{"user", "summary 10", "A 6", "T 6"}));
    }

    void nothingToCutLeavesItOverTheLimit() {
        const auto input = conversation(2, 4000);
        const auto result = compactHistory(input, {1000, 4, false});
        QVERIFY(result.messages == input);
        QCOMPARE(result.cutCount, std::uint64_t(0));
        QVERIFY(result.estimatedTokensAfter > 1000);
        QVERIFY(compactHistory({}, {1000, 4, true}).messages.empty());
    }

    void cuttingThatWouldNotHelpIsSkipped() {
        // One tiny old turn: a summary would cost more than it saves, and the huge recent turn stays over
        // the limit either way.
        auto input = conversation(1, 1);
        const auto big = conversation(1, 40000, 2);
        input.insert(input.end(), big.begin(), big.end());
        const auto result = compactHistory(input, {1000, 2, false});
        QVERIFY(result.messages == input);
        QCOMPARE(result.cutCount, std::uint64_t(0));
    }
};

QTEST_APPLESS_MAIN(TestCompaction)
#include "tst_compaction.moc"
