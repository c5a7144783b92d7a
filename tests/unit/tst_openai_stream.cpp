// OpenAiStream: chat.completion.chunk events -> the reply, its text deltas, usage and finish reason.
#include "agent_core/protocol/Methods.h"
#include "app/providers/OpenAiStream.h"

#include <QtTest>

using warren::control::OpenAiStream;
using warren::SseEvent;

namespace {

// Rows write JSON with single quotes to stay readable; no row needs a quote inside a string.
std::string q(const char* text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '\'', '"');
    return out;
}

std::string chunk(const char* delta, const char* finish = "null") {
    return q("{'id':'c','object':'chat.completion.chunk','model':'m','choices':[{'index':0,'delta':") + q(delta) +
           q(",'finish_reason':") + q(finish) + "}]}";
}

std::string usageChunk(int prompt, int completion) {
    return q("{'id':'c','object':'chat.completion.chunk','choices':[],'usage':{'prompt_tokens':") +
           std::to_string(prompt) + q(",'completion_tokens':") + std::to_string(completion) + "}}";
}

struct Run {
    QStringList deltas;
    QString error;
    nlohmann::json result;
};

Run run(const QList<QByteArray>& data) {
    OpenAiStream stream;
    Run out;
    for (const QByteArray& line : data) {
        auto text = stream.feed(SseEvent{"", line.toStdString()});
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

QByteArray b(const std::string& text) {
    return QByteArray::fromStdString(text);
}

} // namespace

class TestOpenAiStream : public QObject {
    Q_OBJECT
private slots:
    void assemblesReplies_data();
    void assemblesReplies();
    void refusesBrokenStreams_data();
    void refusesBrokenStreams();
    void passesOnArgumentsNestedTooDeep();
    void mapsFinishReasons_data();
    void mapsFinishReasons();
};

void TestOpenAiStream::assemblesReplies_data() {
    QTest::addColumn<QList<QByteArray>>("data");
    QTest::addColumn<QStringList>("deltas");
    QTest::addColumn<QByteArray>("result");

    QTest::newRow("text in pieces with usage chunk")
        << QList<QByteArray>{b(chunk("{'role':'assistant','content':''}")), b(chunk("{'content':'Hel'}")),
                             b(chunk("{'content':'lo'}")), b(chunk("{}", "'stop'")), b(usageChunk(12, 3)), "[DONE]"}
        << QStringList{"Hel", "lo"}
        << b(q("{'content':'Hello','tool_calls':[],'token_usage':{'input':12,'output':3},'finish_reason':'stop'}"));
    QTest::newRow("tool call arguments in five fragments")
        << QList<QByteArray>{b(chunk("{'role':'assistant','content':null,'tool_calls':[{'index':0,'id':'call_a',"
                                     "'type':'function','function':{'name':'shell','arguments':''}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'{\\'com'}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'mand\\':'}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':' \\'ls '}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'-la\\''}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'}'}}]}")),
                             b(chunk("{}", "'tool_calls'")), b(usageChunk(40, 9)), "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[{'id':'call_a','name':'shell','arguments':{'command':'ls -la'}}],"
               "'token_usage':{'input':40,'output':9},'finish_reason':'tool_calls'}"));
    QTest::newRow("two calls interleaved by index")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'index':0,'id':'a','function':{'name':'read_file','arguments':''}},"
                                     "{'index':1,'id':'b','function':{'name':'list_files','arguments':'{}'}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'{\\'path\\':\\'x\\'}'}}]}")),
                             b(chunk("{}", "'tool_calls'")), "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[{'id':'a','name':'read_file','arguments':{'path':'x'}},"
               "{'id':'b','name':'list_files','arguments':{}}],'token_usage':{'input':0,'output':0},"
               "'finish_reason':'tool_calls'}"));
    QTest::newRow("whole calls without index, as older Ollama sends them")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'id':'a','function':{'name':'shell','arguments':{'command':'ls'}}}]}")),
                             b(chunk("{'tool_calls':[{'id':'b','function':{'name':'finish','arguments':'{}'}}]}")),
                             b(chunk("{}", "'stop'")), "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[{'id':'a','name':'shell','arguments':{'command':'ls'}},"
               "{'id':'b','name':'finish','arguments':{}}],'token_usage':{'input':0,'output':0},"
               "'finish_reason':'tool_calls'}"));
    QTest::newRow("text then a call without arguments")
        << QList<QByteArray>{b(chunk("{'content':'Done.'}")),
                             b(chunk("{'tool_calls':[{'index':0,'id':'f','function':{'name':'finish'}}]}")),
                             b(chunk("{}", "'tool_calls'")), "[DONE]"}
        << QStringList{"Done."}
        << b(q("{'content':'Done.','tool_calls':[{'id':'f','name':'finish','arguments':{}}],"
               "'token_usage':{'input':0,'output':0},'finish_reason':'tool_calls'}"));
    QTest::newRow("cut at max_tokens")
        << QList<QByteArray>{b(chunk("{'content':'abc'}", "'length'")), "[DONE]"} << QStringList{"abc"}
        << b(q("{'content':'abc','tool_calls':[],'token_usage':{'input':0,'output':0},'finish_reason':'length'}"));
    QTest::newRow("reasoning tokens from completion_tokens_details")
        << QList<QByteArray>{b(chunk("{'content':'ok'}", "'stop'")),
                             b(q("{'id':'c','object':'chat.completion.chunk','choices':[],'usage':{'prompt_tokens':5,"
                                 "'completion_tokens':900,'completion_tokens_details':{'reasoning_tokens':870}}}")),
                             "[DONE]"}
        << QStringList{"ok"}
        << b(q("{'content':'ok','tool_calls':[],'token_usage':{'input':5,'output':900,'reasoning':870},"
               "'finish_reason':'stop'}"));
    QTest::newRow("a server's reasoning text is shown, not part of the reply")
        << QList<QByteArray>{b(chunk("{'reasoning_content':'Think'}")), b(chunk("{'reasoning':'ing.'}")),
                             b(chunk("{'content':'ok'}", "'stop'")), "[DONE]"}
        << QStringList{"ok"}
        << b(q("{'content':'ok','tool_calls':[],'token_usage':{'input':0,'output':0},'finish_reason':'stop',"
               "'reasoning':[{'type':'thinking','thinking':'Thinking.'}]}"));
    QTest::newRow("length in the middle of a call's arguments: the call is cut, not returned")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'index':0,'id':'w','function':{'name':'write_file','arguments':''}}]}")),
                             b(chunk("{'tool_calls':[{'index':0,'function':{'arguments':'{\\'path\\':\\'a\\',\\'content\\':\\'xx'}}]}")),
                             b(chunk("{}", "'length'")), b(usageChunk(10, 4096)), "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[],'token_usage':{'input':10,'output':4096},'finish_reason':'length',"
               "'cut_tool_calls':1}"));
    // The model's mistake goes back to it (the agent answers the call with what was wrong), never fails the reply.
    QTest::newRow("arguments that are not JSON are passed on as the model wrote them")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'index':0,'id':'a','function':{'name':'shell','arguments':'{\\'x'}}]}")),
                             "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[{'id':'a','name':'shell','arguments':{},'invalid_arguments':'{\\'x'}],"
               "'token_usage':{'input':0,'output':0},'finish_reason':'tool_calls'}"));
    QTest::newRow("arguments that are an array are passed on too")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'index':0,'id':'a','function':{'name':'shell','arguments':'[1]'}}]}")),
                             "[DONE]"}
        << QStringList{}
        << b(q("{'content':'','tool_calls':[{'id':'a','name':'shell','arguments':{},'invalid_arguments':'[1]'}],"
               "'token_usage':{'input':0,'output':0},'finish_reason':'tool_calls'}"));
    QTest::newRow("events after [DONE] are ignored")
        << QList<QByteArray>{b(chunk("{'content':'a'}", "'stop'")), "[DONE]", b(chunk("{'content':'late'}"))}
        << QStringList{"a"}
        << b(q("{'content':'a','tool_calls':[],'token_usage':{'input':0,'output':0},'finish_reason':'stop'}"));
}

void TestOpenAiStream::assemblesReplies() {
    QFETCH(QList<QByteArray>, data);
    QFETCH(QStringList, deltas);
    QFETCH(QByteArray, result);
    const Run got = run(data);
    QCOMPARE(got.error, QString());
    QCOMPARE(got.deltas, deltas);
    QCOMPARE(QByteArray::fromStdString(got.result.dump()), QByteArray::fromStdString(nlohmann::json::parse(result.toStdString()).dump()));
}

// Arguments nested deeper than json_fields::kMaxJsonDepth are no JSON the agent can be sent (every copy or dump
// recurses as deep): they reach the model as arguments that did not read, like any other.
void TestOpenAiStream::passesOnArgumentsNestedTooDeep() {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const nlohmann::json fragment = {{"index", 0}, {"id", "a"}, {"function", {{"name", "shell"}, {"arguments", deep}}}};
    const nlohmann::json chunk = {{"choices", {{{"index", 0}, {"delta", {{"tool_calls", {fragment}}}}}}}};
    const Run got = run({b(chunk.dump()), "[DONE]"});
    QCOMPARE(got.error, QString());
    const auto& call = got.result["tool_calls"][0];
    QCOMPARE(call["arguments"], nlohmann::json::object());
    QCOMPARE(call["invalid_arguments"].get<std::string>().size(), deep.size());
}

void TestOpenAiStream::refusesBrokenStreams_data() {
    QTest::addColumn<QList<QByteArray>>("data");
    QTest::addColumn<QString>("error");

    QTest::newRow("line that is not JSON") << QList<QByteArray>{b(chunk("{'content':'a'}")), "{\"choices\": [oops"}
                                           << "not JSON: data: {\"choices\": [oops";
    QTest::newRow("long bad line is cut") << QList<QByteArray>{QByteArray(5000, 'x')} << QString(200, 'x') + "...";
    QTest::newRow("chunk without choices") << QList<QByteArray>{"{\"id\":\"c\"}"} << "without \"choices\"";
    // Nested deeper than json_fields::kMaxJsonDepth: a copy or dump of it would recurse that deep.
    QTest::newRow("chunk nested 100000 deep") << QList<QByteArray>{"{\"choices\":" + QByteArray(100000, '[') + QByteArray(100000, ']') + "}"}
                                             << "not JSON";
    QTest::newRow("error object in the stream")
        << QList<QByteArray>{b(q("{'error':{'message':'Model overloaded','type':'server_error'}}"))}
        << "reported an error mid-reply: Model overloaded";
    QTest::newRow("stream ends without [DONE]") << QList<QByteArray>{b(chunk("{'content':'a'}", "'stop'"))}
                                                << "without [DONE]";
    QTest::newRow("call without a name")
        << QList<QByteArray>{b(chunk("{'tool_calls':[{'index':0,'id':'a','function':{'arguments':'{}'}}]}")), "[DONE]"}
        << "without a function name";
}

void TestOpenAiStream::refusesBrokenStreams() {
    QFETCH(QList<QByteArray>, data);
    QFETCH(QString, error);
    const Run got = run(data);
    QVERIFY2(got.error.contains(error), qPrintable(got.error));
}

void TestOpenAiStream::mapsFinishReasons_data() {
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("hasToolCalls");
    QTest::addColumn<QString>("mapped");
    QTest::newRow("stop") << "stop" << false << "stop";
    QTest::newRow("tool_calls") << "tool_calls" << true << "tool_calls";
    QTest::newRow("stop with calls (older Ollama)") << "stop" << true << "tool_calls";
    QTest::newRow("length") << "length" << false << "length";
    QTest::newRow("length wins over calls") << "length" << true << "length";
    QTest::newRow("content_filter") << "content_filter" << false << "stop";
    QTest::newRow("none sent") << "" << false << "stop";
}

void TestOpenAiStream::mapsFinishReasons() {
    QFETCH(QString, reason);
    QFETCH(bool, hasToolCalls);
    QFETCH(QString, mapped);
    QCOMPARE(QString::fromStdString(warren::control::mapOpenAiFinishReason(reason.toStdString(), hasToolCalls)), mapped);
}

QTEST_APPLESS_MAIN(TestOpenAiStream)
#include "tst_openai_stream.moc"
