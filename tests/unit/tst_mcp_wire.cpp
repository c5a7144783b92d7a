// MCP's messages as warren-agent writes and reads them (McpWire, pure): the handshake, tools/list with its
// pages, tools/call, the answers owed to the server's requests; what a server answers read strictly and
// never trusted (a version warren-agent does not speak, a tool without an object schema, a list without
// end); and what the model reads of a call's result, for every kind of content, bounded.

#include "agent_core/mcp/McpWire.h"
#include "agent_core/process/OutputCap.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

// A document as the data rows hold them. (moc misreads a backslash in a raw string literal.)
QString jsonText(const json& document) {
    return QString::fromStdString(document.dump());
}

json wire(const protocol::Message& message) {
    return json::parse(protocol::serialize(message));
}

json tool(const std::string& name, const json& schema = {{"type", "object"}}) {
    return {{"name", name}, {"description", "does " + name}, {"inputSchema", schema}};
}

McpToolPage page(const std::vector<std::string>& names, std::optional<std::string> cursor) {
    McpToolPage out;
    for (const auto& name : names)
        out.tools.push_back({name, "", {{"type", "object"}}});
    out.nextCursor = std::move(cursor);
    return out;
}

std::string base64Of(std::size_t bytes) {
    // Its size, not its content, is what the model is told.
    std::string text((bytes + 2) / 3 * 4, 'A');
    if (bytes % 3 == 1)
        text.replace(text.size() - 2, 2, "==");
    else if (bytes % 3 == 2)
        text.back() = '=';
    return text;
}

} // namespace

class TestMcpWire : public QObject {
    Q_OBJECT
private slots:
    void initializeAsksFor2025_06_18() {
        const json message = wire(initializeRequest(1));
        QCOMPARE(message["jsonrpc"], "2.0");
        QCOMPARE(message["id"], 1);
        QCOMPARE(message["method"], "initialize");
        QCOMPARE(message["params"]["protocolVersion"], "2025-06-18");
        QCOMPARE(message["params"]["capabilities"], json::object()); // no sampling, roots, elicitation
        QCOMPARE(message["params"]["clientInfo"]["name"], "warren-agent");
        QVERIFY(message["params"]["clientInfo"]["version"].is_string());

        const json initialized = wire(initializedNotification());
        QCOMPARE(initialized, json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    }

    void toolsListAndCall() {
        QCOMPARE(wire(toolsListRequest(2, std::nullopt)),
                 json({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}, {"params", json::object()}}));
        QCOMPARE(wire(toolsListRequest(3, "page-2"))["params"], json({{"cursor", "page-2"}}));
        QCOMPARE(wire(toolsCallRequest(4, "echo", {{"message", "hi"}}))["params"],
                 json({{"name", "echo"}, {"arguments", {{"message", "hi"}}}}));
        // Arguments are an object on the wire whatever the model sent.
        QCOMPARE(wire(toolsCallRequest(5, "echo", json()))["params"]["arguments"], json::object());
        QCOMPARE(wire(cancelledNotification(6, "a stop was requested")),
                 json({{"jsonrpc", "2.0"},
                       {"method", "notifications/cancelled"},
                       {"params", {{"requestId", 6}, {"reason", "a stop was requested"}}}}));
    }

    void serverRequestsAreAnswered() {
        QCOMPARE(wire(answerServerRequest({7, "ping", nullptr})),
                 json({{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object()}}));
        for (const char* method : {"sampling/createMessage", "roots/list", "elicitation/create", "x"}) {
            const json answer = wire(answerServerRequest({std::string("req-1"), method, json::object()}));
            QCOMPARE(answer["id"], "req-1");
            QCOMPARE(answer["error"]["code"], -32601);
            QVERIFY(!answer.contains("result"));
        }
    }

    void initializeResult_data() {
        QTest::addColumn<QString>("result");
        QTest::addColumn<QString>("error"); // empty: accepted
        QTest::newRow("2025-06-18")
            << R"({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}})"
            << "";
        QTest::newRow("2025-03-26") << R"({"protocolVersion": "2025-03-26", "capabilities": {}})"
                                    << "";
        QTest::newRow("2024-11-05")
            << R"({"protocolVersion": "2024-11-05", "capabilities": {"tools": {"listChanged": true}}})"
            << "";
        QTest::newRow("a later version") << R"({"protocolVersion": "2099-01-01", "capabilities": {}})"
                                         << "it speaks MCP \"2099-01-01\", which warren-agent does not (it "
                                            "speaks 2025-06-18, 2025-03-26, 2024-11-05)";
        QTest::newRow("no version") << R"({"capabilities": {}})"
                                    << "names no protocolVersion";
        QTest::newRow("version a number") << R"({"protocolVersion": 20250618})"
                                          << "names no protocolVersion";
        QTest::newRow("not an object") << R"("ok")"
                                       << "its initialize result is a string, not an object";
    }

    void initializeResult() {
        QFETCH(QString, result);
        QFETCH(QString, error);
        const auto info = readInitializeResult(json::parse(result.toStdString()));
        if (!error.isEmpty()) {
            QVERIFY(!info);
            QVERIFY2(QString::fromStdString(info.error().message).contains(error),
                     info.error().message.c_str());
            return;
        }
        QVERIFY2(info, info ? "" : info.error().message.c_str());
        QCOMPARE(info->protocolVersion,
                 json::parse(result.toStdString())["protocolVersion"].get<std::string>());
        QCOMPARE(info->offersTools, result.contains("\"tools\""));
    }

    void serverInfoIsBounded() {
        const auto info =
            readInitializeResult({{"protocolVersion", "2025-06-18"},
                                  {"serverInfo", {{"name", std::string(10000, 'n')}, {"version", 3}}}});
        QVERIFY(info);
        QVERIFY(info->name.size() < 300);
        QCOMPARE(info->version, std::string()); // not a string: left out
    }

    void toolsList() {
        const json result = {
            {"tools",
             {tool("echo", {{"type", "object"}, {"properties", {{"message", {{"type", "string"}}}}}}),
              {{"name", "bare"}, {"inputSchema", {{"type", "object"}}}},
              {{"description", "no name"}, {"inputSchema", {{"type", "object"}}}},
              {{"name", "no-schema"}},
              tool("schema-not-object", "object"),
              tool("schema-of-a-string", {{"type", "string"}}),
              tool("schema-without-type", {{"properties", json::object()}}),
              "not a tool",
              {{"name", ""}, {"inputSchema", {{"type", "object"}}}}}},
            {"nextCursor", "c2"}};
        const auto read = readToolsListResult(result);
        QVERIFY(read);
        QCOMPARE(read->tools.size(), std::size_t(2));
        QCOMPARE(read->tools[0].name, std::string("echo"));
        QCOMPARE(read->tools[0].description, std::string("does echo"));
        QCOMPARE(read->tools[0].inputSchema["properties"]["message"]["type"], "string");
        QCOMPARE(read->tools[1].description, std::string());
        QCOMPARE(read->nextCursor, std::optional<std::string>("c2"));
        const std::vector<std::string> skipped = {"a tool without a name",
                                                  "tool \"no-schema\" skipped: it has no inputSchema",
                                                  "tool \"schema-not-object\" skipped: its inputSchema must "
                                                  "be a JSON Schema of \"type\": \"object\", got \"object\"",
                                                  "tool \"schema-of-a-string\" skipped: its inputSchema must "
                                                  "be a JSON Schema of \"type\": \"object\", got "
                                                  "{\"type\":\"string\"}",
                                                  "tool \"schema-without-type\" skipped: its inputSchema "
                                                  "must be a JSON Schema of \"type\": \"object\", got "
                                                  "{\"properties\":{}}",
                                                  "a tool that is a string, not an object",
                                                  "a tool without a name"};
        QCOMPARE(read->skipped, skipped);
    }

    void toolsListBounds() {
        json huge = {{"type", "object"}, {"description", std::string(kMaxInputSchemaBytes, 'd')}};
        json longDescription = tool("long");
        longDescription["description"] = std::string(10000, 'w');
        const auto read = readToolsListResult(
            {{"tools", {tool("huge", huge), longDescription}}, {"nextCursor", std::string(5000, 'c')}});
        QVERIFY(read);
        QCOMPARE(read->tools.size(), std::size_t(1));
        QVERIFY(read->tools[0].description.size() <= kMaxToolDescriptionBytes + 24);
        QVERIFY(read->tools[0].description.ends_with(" [... 10000 bytes]"));
        QVERIFY(!read->nextCursor);
        QCOMPARE(read->skipped.size(), std::size_t(2));
        QVERIFY2(read->skipped[0].find("more than 65536") != std::string::npos, read->skipped[0].c_str());
        QVERIFY2(read->skipped[1].find("nextCursor has 5000 bytes") != std::string::npos,
                 read->skipped[1].c_str());
    }

    void toolsListWithoutTools_data() {
        QTest::addColumn<QString>("result");
        QTest::newRow("no tools") << R"({"nextCursor": "x"})";
        QTest::newRow("tools an object") << R"({"tools": {"echo": {}}})";
        QTest::newRow("not an object") << R"([])";
    }

    void toolsListWithoutTools() {
        QFETCH(QString, result);
        const auto read = readToolsListResult(json::parse(result.toStdString()));
        QVERIFY(!read);
        QVERIFY2(read.error().message.find("its tools/list result has no \"tools\" array") !=
                     std::string::npos,
                 read.error().message.c_str());
    }

    void listingFollowsCursors() {
        McpToolListing listing;
        QCOMPARE(listing.add(page({"a", "b"}, "2")), std::optional<std::string>("2"));
        QCOMPARE(listing.add(page({"c", "a"}, "3")), std::optional<std::string>("3"));
        QCOMPARE(listing.add(page({"d"}, std::nullopt)), std::nullopt);
        std::vector<std::string> names;
        for (const auto& spec : listing.tools())
            names.push_back(spec.name);
        QCOMPARE(names, (std::vector<std::string>{"a", "b", "c", "d"}));
        QCOMPARE(listing.skipped(),
                 (std::vector<std::string>{"tool \"a\" is listed twice; the first is kept"}));
    }

    void listingStopsAt1000Tools() {
        McpToolListing listing;
        std::optional<std::string> cursor = "0";
        int pages = 0;
        while (cursor) {
            std::vector<std::string> names;
            for (int i = 0; i < 300; ++i)
                names.push_back("t" + std::to_string(pages * 300 + i));
            cursor = listing.add(page(names, "next"));
            ++pages;
        }
        QCOMPARE(pages, 4);
        QCOMPARE(listing.tools().size(), kMaxMcpTools);
        QCOMPARE(listing.skipped(),
                 (std::vector<std::string>{"more than 1000 tools: the rest of the list is not offered"}));
    }

    void listingStopsAt100Pages() {
        McpToolListing listing;
        int pages = 0;
        while (listing.add(page({}, "same cursor again")))
            ++pages;
        QCOMPARE(pages + 1, int(kMaxMcpToolPages));
        QCOMPARE(listing.skipped(),
                 (std::vector<std::string>{
                     "the list goes on past 100 pages: the tools of the rest are not offered"}));
    }

    void callResult_data() {
        QTest::addColumn<QString>("result");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("isError");
        QTest::newRow("text") << R"({"content": [{"type": "text", "text": "Echo: hi"}]})"
                              << "Echo: hi" << false;
        QTest::newRow("texts joined by lines")
            << R"({"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]})"
            << "one\ntwo" << false;
        QTest::newRow("image")
            << R"({"content": [{"type": "text", "text": "Here:"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]})"
            << "Here:\n[image: image/png, 8 bytes]" << false;
        QTest::newRow("audio")
            << R"({"content": [{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]})"
            << "[audio: audio/wav, 4 bytes]" << false;
        QTest::newRow("image without data or type") << R"({"content": [{"type": "image"}]})"
                                                    << "[image: unknown type, no data]" << false;
        QTest::newRow("resource link")
            << R"({"content": [{"type": "resource_link", "uri": "file:///workspace/a.txt", "name": "a.txt", "mimeType": "text/plain"}]})"
            << "[resource link: file:///workspace/a.txt (a.txt)]" << false;
        QTest::newRow("resource link without a name")
            << R"({"content": [{"type": "resource_link", "uri": "demo://1"}]})"
            << "[resource link: demo://1]" << false;
        QTest::newRow("embedded text resource")
            << jsonText(
                   {{"content",
                     {{{"type", "resource"},
                       {"resource",
                        {{"uri", "demo://r/1"}, {"mimeType", "text/plain"}, {"text", "line 1\nline 2"}}}}}}})
            << "[resource demo://r/1]\nline 1\nline 2" << false;
        QTest::newRow("embedded blob resource")
            << R"({"content": [{"type": "resource", "resource": {"uri": "demo://r/2", "mimeType": "application/gzip", "blob": "H4sIAAAAAAAA"}}]})"
            << "[resource demo://r/2: application/gzip, 9 bytes]" << false;
        QTest::newRow("resource without a resource")
            << R"({"content": [{"type": "resource"}]})"
            << "[embedded resource without a resource object]" << false;
        QTest::newRow("structured content, also as text: once")
            << jsonText({{"content", {{{"type", "text"}, {"text", "{\"t\": 36}"}}}},
                         {"structuredContent", {{"t", 36}}}})
            << "{\"t\": 36}" << false;
        QTest::newRow("structured content only")
            << R"({"content": [], "structuredContent": {"t": 36, "unit": "C"}})"
            << "[structured content] {\"t\":36,\"unit\":\"C\"}" << false;
        QTest::newRow("structured content beside other text")
            << R"({"content": [{"type": "text", "text": "Weather:"}], "structuredContent": {"t": 36}})"
            << "Weather:\n[structured content] {\"t\":36}" << false;
        QTest::newRow("isError")
            << R"({"content": [{"type": "text", "text": "Tool nope not found"}], "isError": true})"
            << "Tool nope not found" << true;
        QTest::newRow("isError not a boolean")
            << R"({"content": [{"type": "text", "text": "x"}], "isError": "yes"})"
            << "x" << false;
        QTest::newRow("isError, nothing said") << R"({"content": [], "isError": true})"
                                               << "[the tool failed and said nothing]" << true;
        QTest::newRow("no content") << R"({})"
                                    << "[the tool returned no content]" << false;
        QTest::newRow("unknown type") << R"({"content": [{"type": "video", "data": "AAAA"}]})"
                                      << "[content of type \"video\"]" << false;
        QTest::newRow("item without type") << R"({"content": [{"text": "x"}]})"
                                           << "[content item without a type]" << false;
        QTest::newRow("item not an object") << R"({"content": ["x", 3]})"
                                            << "[content item that is a string, not an object]\n"
                                               "[content item that is the integer 3, not an object]"
                                            << false;
        QTest::newRow("text without text") << R"({"content": [{"type": "text", "text": 5}]})"
                                           << "[text content without text]" << false;
        QTest::newRow("content not an array") << R"({"content": {"type": "text", "text": "x"}})"
                                              << "[content that is an object, not an array]" << false;
        QTest::newRow("result not an object") << R"("done")"
                                              << "[the server's result is a string, not an object]" << true;
    }

    void callResult() {
        QFETCH(QString, result);
        QFETCH(QString, text);
        QFETCH(bool, isError);
        const auto read = readToolsCallResult(json::parse(result.toStdString()), 16 * 1024);
        QCOMPARE(QString::fromStdString(read.text), text);
        QCOMPARE(read.isError, isError);
        QVERIFY(!read.truncated);
    }

    void mediaSizeIsTheDecodedSize_data() {
        QTest::addColumn<int>("bytes");
        for (int bytes : {0, 1, 2, 3, 4, 5, 1000, 1001, 1002})
            QTest::addRow("%d bytes", bytes) << bytes;
    }

    void mediaSizeIsTheDecodedSize() {
        QFETCH(int, bytes);
        const json result = {
            {"content",
             {{{"type", "image"}, {"mimeType", "image/png"}, {"data", base64Of(std::size_t(bytes))}}}}};
        QCOMPARE(QString::fromStdString(readToolsCallResult(result, 1024).text),
                 QString("[image: image/png, %1 bytes]").arg(bytes));
    }

    void neverTheBase64() {
        const std::string data = base64Of(300000);
        const json result = {{"content", {{{"type", "image"}, {"mimeType", "image/png"}, {"data", data}}}}};
        const auto read = readToolsCallResult(result, 16 * 1024);
        QCOMPARE(read.text, std::string("[image: image/png, 300000 bytes]"));
        QVERIFY(!read.truncated);
    }

    void outputIsCapped() {
        const std::string big = std::string(50000, 'h') + std::string(50000, 't');
        const auto read = readToolsCallResult({{"content", {{{"type", "text"}, {"text", big}}}}}, 4096);
        QVERIFY(read.truncated);
        QVERIFY(read.text.size() <= 4096 + OutputCap::kMaxMarkerBytes);
        QVERIFY(read.text.starts_with("hhhh"));
        QVERIFY(read.text.ends_with("tttt")); // head and tail, as a command's output
        QVERIFY(read.text.find(" bytes cut ...]") != std::string::npos);
    }

    void contentItemsAreBounded() {
        json content = json::array();
        for (std::size_t i = 0; i < kMaxContentItems + 5; ++i)
            content.push_back({{"type", "text"}, {"text", "x"}});
        const auto read = readToolsCallResult({{"content", content}}, 1 << 20);
        QVERIFY(read.text.ends_with("\n[5 more content items not shown]"));
    }
};

QTEST_APPLESS_MAIN(TestMcpWire)
#include "tst_mcp_wire.moc"
