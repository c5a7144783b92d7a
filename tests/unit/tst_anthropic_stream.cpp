// AnthropicStream: Messages API stream events -> the reply, its text deltas, usage and stop reason.
#include "agent_core/protocol/Methods.h"
#include "app/providers/AnthropicStream.h"

#include <QtTest>

using warren::control::AnthropicStream;
using warren::SseEvent;

namespace {

// Rows write JSON with single quotes; q() turns them into double quotes.
QByteArray q(const char* text) {
    QByteArray out(text);
    out.replace('\'', '"');
    return out;
}

const QByteArray kStart = q("{'type':'message_start','message':{'id':'msg_1','type':'message','role':'assistant',"
                            "'content':[],'model':'claude','stop_reason':null,'usage':{'input_tokens':25,'output_tokens':1}}}");
const QByteArray kPing = q("{'type':'ping'}");
const QByteArray kStop = q("{'type':'message_stop'}");

QByteArray textStart(int index) {
    return q("{'type':'content_block_start','index':") + QByteArray::number(index) +
           q(",'content_block':{'type':'text','text':''}}");
}

QByteArray textDelta(int index, const char* text) {
    return q("{'type':'content_block_delta','index':") + QByteArray::number(index) +
           q(",'delta':{'type':'text_delta','text':'") + text + q("'}}");
}

QByteArray jsonDelta(int index, const char* partial) {
    return q("{'type':'content_block_delta','index':") + QByteArray::number(index) +
           q(",'delta':{'type':'input_json_delta','partial_json':'") + q(partial).replace("\"", "\\\"") + q("'}}");
}

QByteArray blockStop(int index) {
    return q("{'type':'content_block_stop','index':") + QByteArray::number(index) + "}";
}

QByteArray messageDelta(const char* reason, int outputTokens) {
    return q("{'type':'message_delta','delta':{'stop_reason':'") + reason +
           q("','stop_sequence':null},'usage':{'output_tokens':") + QByteArray::number(outputTokens) + "}}";
}

QByteArray toolStart(int index, const char* id, const char* name) {
    return q("{'type':'content_block_start','index':") + QByteArray::number(index) +
           q(",'content_block':{'type':'tool_use','id':'") + id + q("','name':'") + name + q("','input':{}}}");
}

struct Run {
    QStringList deltas;
    QString error;
    nlohmann::json result;
};

Run run(const QList<QByteArray>& data) {
    AnthropicStream stream;
    Run out;
    for (const QByteArray& line : data) {
        // The event name repeats the data's type, as the API sends it.
        const auto parsed = nlohmann::json::parse(line.toStdString(), nullptr, false);
        const std::string name = parsed.is_object() ? parsed.value("type", "") : "";
        auto text = stream.feed(SseEvent{name, line.toStdString()});
        if (!text) {
            out.error = QString::fromStdString(text.error().message);
            return out;
        }
        if (!text->empty())
            out.deltas << QString::fromStdString(*text);
    }
    auto result = stream.result();
    if (!result)
        out.error = QString::fromStdString(result.error().message);
    else
        out.result = warren::protocol::toJson(result.value());
    return out;
}

} // namespace

class TestAnthropicStream : public QObject {
    Q_OBJECT
private slots:
    void assemblesReplies_data();
    void assemblesReplies();
    void refusesBrokenStreams_data();
    void refusesBrokenStreams();
    void mapsStopReasons_data();
    void mapsStopReasons();
};

void TestAnthropicStream::assemblesReplies_data() {
    QTest::addColumn<QList<QByteArray>>("data");
    QTest::addColumn<QStringList>("deltas");
    QTest::addColumn<QByteArray>("result");

    QTest::newRow("text with ping and usage")
        << QList<QByteArray>{kStart, kPing, textStart(0), textDelta(0, "Hello"), kPing, textDelta(0, ", world"),
                             blockStop(0), messageDelta("end_turn", 9), kStop}
        << QStringList{"Hello", ", world"}
        << q("{'content':'Hello, world','tool_calls':[],'token_usage':{'input':25,'output':9},'finish_reason':'stop'}");
    QTest::newRow("text then tool_use with input in fragments")
        << QList<QByteArray>{kStart, textStart(0), textDelta(0, "Listing."), blockStop(0),
                             toolStart(1, "toolu_1", "shell"), jsonDelta(1, ""), jsonDelta(1, "{'comm"),
                             jsonDelta(1, "and': 'ls"), jsonDelta(1, " -la'"), jsonDelta(1, "}"), blockStop(1),
                             messageDelta("tool_use", 31), kStop}
        << QStringList{"Listing."}
        << q("{'content':'Listing.','tool_calls':[{'id':'toolu_1','name':'shell','arguments':{'command':'ls -la'}}],"
             "'token_usage':{'input':25,'output':31},'finish_reason':'tool_calls'}");
    QTest::newRow("tool_use without input deltas")
        << QList<QByteArray>{kStart, toolStart(0, "toolu_2", "list_files"), blockStop(0),
                             messageDelta("tool_use", 5), kStop}
        << QStringList{}
        << q("{'content':'','tool_calls':[{'id':'toolu_2','name':'list_files','arguments':{}}],"
             "'token_usage':{'input':25,'output':5},'finish_reason':'tool_calls'}");
    QTest::newRow("thinking blocks are not reply text")
        << QList<QByteArray>{kStart,
                             q("{'type':'content_block_start','index':0,'content_block':{'type':'thinking','thinking':''}}"),
                             q("{'type':'content_block_delta','index':0,'delta':{'type':'thinking_delta','thinking':'hmm'}}"),
                             blockStop(0), textStart(1), textDelta(1, "ok"), blockStop(1), messageDelta("end_turn", 3),
                             kStop}
        << QStringList{"ok"}
        << q("{'content':'ok','tool_calls':[],'token_usage':{'input':25,'output':3},'finish_reason':'stop',"
             "'reasoning':[{'type':'thinking','thinking':'hmm'}]}");
    QTest::newRow("thinking with its signature, redacted thinking, then tool_use: kept in order to send back")
        << QList<QByteArray>{kStart,
                             q("{'type':'content_block_start','index':0,'content_block':{'type':'thinking','thinking':'','signature':''}}"),
                             q("{'type':'content_block_delta','index':0,'delta':{'type':'thinking_delta','thinking':'List '}}"),
                             q("{'type':'content_block_delta','index':0,'delta':{'type':'thinking_delta','thinking':'first.'}}"),
                             q("{'type':'content_block_delta','index':0,'delta':{'type':'signature_delta','signature':'EqQB'}}"),
                             blockStop(0),
                             q("{'type':'content_block_start','index':1,'content_block':{'type':'redacted_thinking','data':'ENC'}}"),
                             blockStop(1), toolStart(2, "toolu_1", "shell"), jsonDelta(2, "{'command':'ls'}"), blockStop(2),
                             messageDelta("tool_use", 40), kStop}
        << QStringList{}
        << q("{'content':'','tool_calls':[{'id':'toolu_1','name':'shell','arguments':{'command':'ls'}}],"
             "'token_usage':{'input':25,'output':40},'finish_reason':'tool_calls','reasoning':["
             "{'type':'thinking','thinking':'List first.','signature':'EqQB'},{'type':'redacted_thinking','data':'ENC'}]}");
    QTest::newRow("max_tokens in the middle of a tool_use: the call is cut, not returned")
        << QList<QByteArray>{kStart, textStart(0), textDelta(0, "Writing."), blockStop(0),
                             toolStart(1, "toolu_9", "write_file"), jsonDelta(1, "{'path':'big.txt','content':'aaa"),
                             blockStop(1), messageDelta("max_tokens", 4096), kStop}
        << QStringList{"Writing."}
        << q("{'content':'Writing.','tool_calls':[],'token_usage':{'input':25,'output':4096},'finish_reason':'length',"
             "'cut_tool_calls':1}");
    // The model's mistake goes back to it (the agent answers the call with what was wrong), never fails the reply.
    QTest::newRow("tool input that is not JSON is passed on as the model wrote it")
        << QList<QByteArray>{kStart, toolStart(0, "t", "shell"), jsonDelta(0, "{'comm"), blockStop(0),
                             messageDelta("tool_use", 5), kStop}
        << QStringList{}
        << q("{'content':'','tool_calls':[{'id':'t','name':'shell','arguments':{},'invalid_arguments':'{\\'comm'}],"
             "'token_usage':{'input':25,'output':5},'finish_reason':'tool_calls'}");
    QTest::newRow("unknown event types are ignored")
        << QList<QByteArray>{kStart, q("{'type':'future_event','x':1}"), textStart(0), textDelta(0, "a"),
                             messageDelta("max_tokens", 2), kStop}
        << QStringList{"a"}
        << q("{'content':'a','tool_calls':[],'token_usage':{'input':25,'output':2},'finish_reason':'length'}");
}

void TestAnthropicStream::assemblesReplies() {
    QFETCH(QList<QByteArray>, data);
    QFETCH(QStringList, deltas);
    QFETCH(QByteArray, result);
    const Run got = run(data);
    QCOMPARE(got.error, QString());
    QCOMPARE(got.deltas, deltas);
    QCOMPARE(QByteArray::fromStdString(got.result.dump()),
             QByteArray::fromStdString(nlohmann::json::parse(result.toStdString()).dump()));
}

void TestAnthropicStream::refusesBrokenStreams_data() {
    QTest::addColumn<QList<QByteArray>>("data");
    QTest::addColumn<QString>("error");

    QTest::newRow("overloaded error event")
        << QList<QByteArray>{kStart, q("{'type':'error','error':{'type':'overloaded_error','message':'Overloaded'}}")}
        << "reported overloaded_error mid-reply: Overloaded";
    QTest::newRow("not JSON") << QList<QByteArray>{kStart, "{\"type\":"} << "not JSON: data: {\"type\":";
    // Nested deeper than json_fields::kMaxJsonDepth: a copy or dump of it would recurse that deep.
    QTest::newRow("nested 100000 deep")
        << QList<QByteArray>{kStart, "{\"type\":\"ping\",\"x\":" + QByteArray(100000, '[') + QByteArray(100000, ']') + "}"}
        << "not JSON";
    QTest::newRow("no type") << QList<QByteArray>{"{\"x\":1}"} << "without a \"type\"";
    QTest::newRow("delta for a block never started") << QList<QByteArray>{kStart, textDelta(3, "a")}
                                                     << "was not started";
    QTest::newRow("ends without message_stop")
        << QList<QByteArray>{kStart, textStart(0), textDelta(0, "a"), messageDelta("end_turn", 2)}
        << "without message_stop";
}

void TestAnthropicStream::refusesBrokenStreams() {
    QFETCH(QList<QByteArray>, data);
    QFETCH(QString, error);
    const Run got = run(data);
    QVERIFY2(got.error.contains(error), qPrintable(got.error));
}

void TestAnthropicStream::mapsStopReasons_data() {
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("hasToolCalls");
    QTest::addColumn<QString>("mapped");
    QTest::newRow("end_turn") << "end_turn" << false << "stop";
    QTest::newRow("tool_use") << "tool_use" << true << "tool_calls";
    QTest::newRow("max_tokens") << "max_tokens" << false << "length";
    QTest::newRow("stop_sequence") << "stop_sequence" << false << "stop";
    QTest::newRow("refusal") << "refusal" << false << "stop";
}

void TestAnthropicStream::mapsStopReasons() {
    QFETCH(QString, reason);
    QFETCH(bool, hasToolCalls);
    QFETCH(QString, mapped);
    QCOMPARE(QString::fromStdString(warren::control::mapAnthropicStopReason(reason.toStdString(), hasToolCalls)),
             mapped);
}

QTEST_APPLESS_MAIN(TestAnthropicStream)
#include "tst_anthropic_stream.moc"
