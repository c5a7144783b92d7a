// handoffRequest / checkHandoffSummary: the request holds handoff.md, the task and the cut messages as a
// transcript within the window (an earlier summary kept, the oldest messages left out first, outputs
// shortened); an answer is used only with the four headings, within an eighth of the window, without
// tool calls and not cut by the output limit.

#include "agent_core/context/Compaction.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/prompt/HandoffPrompt.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatResult;

namespace {

const std::string kNote =
    "## Goal\nFix the parser.\n## Done\n- read src/parse.c\n## Pending\n- fix the off-by-one\n"
    "## State of the code and tests\nparse.c unchanged; test_parse fails: expected 3, got 2";

std::vector<ChatMessage> turns(int count, std::size_t outputBytes) {
    std::vector<ChatMessage> out;
    for (int i = 1; i <= count; ++i) {
        const auto id = "call_" + std::to_string(i);
        out.push_back(
            {"assistant",
             "",
             {warren::protocol::ToolCall{id, "shell", json{{"command", "step " + std::to_string(i)}}}},
             std::nullopt});
        out.push_back({"tool", "out " + std::to_string(i) + "\n" + std::string(outputBytes, 'x'), {}, id});
    }
    return out;
}

LlmChatResult answer(const std::string& content, const std::string& finishReason = "stop") {
    LlmChatResult result;
    result.content = content;
    result.finishReason = finishReason;
    return result;
}

} // namespace

class TestHandoffPrompt : public QObject {
    Q_OBJECT

private slots:
    void requestHoldsInstructionsTaskAndTranscript() {
        const auto request = handoffRequest("Fix the parser.", turns(3, 100), 32000);
        QCOMPARE(request.size(), std::size_t(2));
        QCOMPARE(request[0].role, std::string("system"));
        QVERIFY(!request[0].content.starts_with("<!--")); // the editors' comment is not sent
        for (const auto heading : kHandoffHeadings)
            QVERIFY2(request[0].content.find(heading) != std::string::npos, heading.data());
        QCOMPARE(request[1].role, std::string("user"));
        const auto& user = request[1].content;
        QVERIFY(user.starts_with("The task:\nFix the parser.\n"));
        QVERIFY(user.find("-> call call_1: shell {\"command\":\"step 1\"}") != std::string::npos);
        QVERIFY(user.find("[result of call call_3]\nout 3\n") != std::string::npos);
        QVERIFY(user.find("left out") == std::string::npos);
        QVERIFY(user.ends_with("under 2000 words."));
        QCOMPARE(handoffPromptVersion(), std::string("1"));
    }

    void longOutputsAreShortened() {
        const auto request = handoffRequest("task", turns(1, 5000), 32000);
        const auto& user = request[1].content;
        QVERIFY2(user.find("[... 3506 more bytes]") != std::string::npos, user.c_str());
        QVERIFY(user.size() < 2500);
    }

    void requestStaysInTheWindow_data() {
        QTest::addColumn<int>("limit");
        QTest::newRow("1000") << 1000;
        QTest::newRow("4000") << 4000;
        QTest::newRow("32000") << 32000;
    }
    void requestStaysInTheWindow() {
        QFETCH(int, limit);
        auto cut = turns(200, 1400);
        cut.insert(cut.begin(), handoffSummaryMessage(12, kNote)); // an earlier summary is kept first
        const auto request = handoffRequest("task", cut, std::uint64_t(limit));
        const auto tokens = estimateTokens(request);
        // The request and the answer's room fit the window (at the smallest window the instructions alone
        // take most of it: only they and the frame are sent then).
        if (limit > 1000)
            QVERIFY2(tokens + handoffSummaryLimit(std::uint64_t(limit)) <= std::uint64_t(limit) + 50,
                     qPrintable(QString::number(tokens)));
        const auto& user = request[1].content;
        QVERIFY(user.find("older messages left out for room]") != std::string::npos);
        if (limit >= 4000) {
            QVERIFY(
                user.find(
                    "[an earlier note, for the part before]\n[Earlier conversation compacted: 12 messages") !=
                std::string::npos);
            QVERIFY(user.find("[result of call call_200]") != std::string::npos); // the latest are kept
        }
        QVERIFY(user.find("call_1:") == std::string::npos); // the oldest go first
    }

    void checksTheAnswer_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("finishReason");
        QTest::addColumn<bool>("toolCall");
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("summary");
        const QString note = QString::fromStdString(kNote);
        QTest::newRow("the four headings") << note << "stop" << false << QString() << note;
        QTest::newRow("trimmed, preamble dropped") << "Here is the note:\n\n" + note + "\n\n"
                                                   << "stop" << false << QString() << note;
        QTest::newRow("empty") << "  \n"
                               << "stop" << false << "the answer is empty" << QString();
        QTest::newRow("a heading missing")
            << QString(note).replace("## Pending", "## Next") << "stop" << false
            << "the answer lacks the heading \"## Pending\"" << QString();
        QTest::newRow("a heading not at a line start")
            << QString(note).replace("\n## Done", " ## Done") << "stop" << false
            << "the answer lacks the heading \"## Done\"" << QString();
        QTest::newRow("cut by the output limit")
            << note << "length" << false << "the answer was cut by the output limit" << QString();
        QTest::newRow("a tool call") << note << "tool_calls" << true
                                     << "the answer called a tool instead of writing the summary"
                                     << QString();
        QTest::newRow("oversized")
            << note + "\n" + QString(2000, 'y') << "stop" << false
            << "the answer is about 548 tokens, over the 500 a summary may take (an eighth "
               "of context_window_limit)"
            << QString();
    }
    void checksTheAnswer() {
        QFETCH(QString, content);
        QFETCH(QString, finishReason);
        QFETCH(bool, toolCall);
        QFETCH(QString, problem);
        QFETCH(QString, summary);
        auto reply = answer(content.toStdString(), finishReason.toStdString());
        if (toolCall)
            reply.toolCalls.push_back({"call_1", "shell", json{{"command", "ls"}}});
        const auto verdict = checkHandoffSummary(reply, 4000);
        QCOMPARE(QString::fromStdString(verdict.problem), problem);
        QCOMPARE(verdict.summary.has_value(), !summary.isNull());
        if (verdict.summary)
            QCOMPARE(QString::fromStdString(*verdict.summary), summary);
    }

    void limitIsAnEighthOfTheWindow() {
        QCOMPARE(handoffSummaryLimit(32000), std::uint64_t(4000));
        QCOMPARE(handoffSummaryLimit(8000), std::uint64_t(1000));
        QCOMPARE(handoffSummaryLimit(1000), std::uint64_t(125));
    }
};

QTEST_APPLESS_MAIN(TestHandoffPrompt)
#include "tst_handoff_prompt.moc"
