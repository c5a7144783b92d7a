// workspace.pull and workspace.push, both halves over the real protocol: the agent's pullTree and pushTree
// (agent_core/host/TreeTransfer) call through a channel that serializes each request and each reply to
// the protocol's line and reads it back, to the control plane's ToolProxy with its TaskTrees, token
// checks and all. Real directories on both sides. And a forged control plane serving hostile archives:
// nothing is written outside the agent's directory, which is left empty.

#include "agent_core/host/TreeTransfer.h"
#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/Methods.h"
#include "app/proxy/TaskToken.h"
#include "app/proxy/ToolProxy.h"
#include "app/store/sqlite/SqliteStore.h"
#include "common/Base64.h"
#include "tests/server/uploads/TarBuilder.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren;
using namespace warren::control;
using nlohmann::json;
using warren::tar::test::TarBuilder;
using warren::tar::test::TarHeader;

namespace {

namespace fs = std::filesystem;

void writeFile(const fs::path& path, const std::string& bytes, fs::perms perms = fs::perms(0644)) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    fs::permissions(path, perms);
}

std::string readFile(const fs::path& path) {
    QFile file(QString::fromStdString(path.string()));
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string("(unreadable)");
}

std::string pattern(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * 131) ^ (i >> 9));
    return bytes;
}

// Every path under root (links not followed): its type, the executable bit, and a file's size and first
// bytes or a link's target.
QStringList listing(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const auto status = it->symlink_status();
        const std::string path = it->path().lexically_relative(root).string();
        if (fs::is_symlink(status))
            out[path] = "-> " + fs::read_symlink(it->path()).string();
        else if (fs::is_directory(status))
            out[path] = "dir";
        else
            out[path] = std::string((status.permissions() & fs::perms::owner_exec) != fs::perms::none ? "x " : "  ") +
                        std::to_string(fs::file_size(it->path())) + " " + readFile(it->path()).substr(0, 40);
    }
    QStringList lines;
    for (const auto& [path, what] : out)
        lines << QString::fromStdString(path + ": " + what);
    return lines;
}

// The control plane's side: a real ToolProxy (token checks, the strict readers) with the task's trees.
struct ControlPlane {
    QTemporaryDir dir;
    fs::path root{dir.path().toStdString()};
    std::unique_ptr<Store> store;
    TaskTokens tokens;
    std::unique_ptr<ToolProxy> proxy;
    std::string token;
    std::int64_t nextId = 1;
    int lines = 0; // requests that crossed

    ControlPlane() {
        auto opened = openSqliteStore((root / "warren.db").string());
        store = std::move(*opened);
        TaskRecord task;
        task.id = "t-1";
        task.createdAt = "2026-11-29T10:00:00.000Z";
        (void)store->insertTask(task);
        for (const char* tree : {"workspace", "state", "output"})
            fs::create_directories(root / tree);
        fs::create_directories(root / "scratch");
        ToolProxy::Settings settings;
        settings.taskId = "t-1";
        settings.trees = TaskTrees::Settings{
            {{"workspace", root / "workspace"}, {"state", root / "state"}, {"output", root / "output"}},
            root / "scratch",
            {},
            8u << 20};
        proxy = std::make_unique<ToolProxy>(settings, tokens, *store, nullptr);
        token = tokens.issue("t-1", {scope::kTrees}, std::chrono::minutes(5));
    }

    // The agent's HostCall: the request and its reply each cross as one protocol line.
    agent::HostCall channel(std::optional<std::string> presented = std::nullopt) {
        if (!presented)
            presented = token;
        return [this, presented](const std::string& method, json params, std::chrono::steady_clock::time_point,
                                 const agent::Cancellation*) -> Result<json> {
            params[protocol::kTokenParam] = *presented;
            const std::string line = protocol::serialize(protocol::Request{nextId++, method, params});
            ++lines;
            auto decoded = protocol::parseMessage(line);
            if (!decoded)
                return decoded.error();
            std::optional<std::string> replyLine;
            proxy->handle(std::get<protocol::Request>(*decoded),
                          [&](protocol::Message reply) { replyLine = protocol::serialize(reply); });
            if (!replyLine)
                return makeError(ErrorCode::System, "no reply");
            auto reply = protocol::parseMessage(*replyLine);
            if (!reply)
                return reply.error();
            if (const auto* error = std::get_if<protocol::ErrorResponse>(&*reply))
                return makeError(ErrorCode::InvalidArgument, error->error.message);
            return std::get<protocol::Response>(*reply).result;
        };
    }
};

// A forged control plane: answers every workspace.pull with the chunks of one archive it chose.
agent::HostCall forgedPlane(std::string archive) {
    return [archive = std::move(archive)](const std::string& method, json params,
                                          std::chrono::steady_clock::time_point,
                                          const agent::Cancellation*) -> Result<json> {
        if (method != protocol::method::kWorkspacePull)
            return makeError(ErrorCode::InvalidArgument, "unexpected " + method);
        const auto offset = params["offset"].get<std::uint64_t>();
        const std::string chunk = archive.substr(std::min<std::size_t>(offset, archive.size()), 1000);
        return json{{"data", encodeBase64(chunk)}, {"eof", offset + chunk.size() >= archive.size()}};
    };
}

} // namespace

class TreeTransferTest : public QObject {
    Q_OBJECT
private slots:
    void pullFillsTheAgentsDirectory();
    void pullLeavesOutWhatTheArchiveCannotHold();
    void pushReplacesTheControlPlanesTree();
    void pushedHostileArchiveChangesNothing();
    void chunksMustFollowEachOther();
    void needsTheTreesScope();
    void aTaskWithoutTreesRefuses();
    void refusesAForgedArchive_data();
    void refusesAForgedArchive();
    void pullNeedsAnEmptyDirectory();
};

void TreeTransferTest::pullFillsTheAgentsDirectory() {
    ControlPlane plane;
    const fs::path source = plane.root / "workspace";
    writeFile(source / "README.md", "hello\n");
    writeFile(source / "src/main.cpp", "int main() {}\n");
    writeFile(source / "tools/run.sh", "#!/bin/sh\n", fs::perms(0755));
    writeFile(source / "big.bin", pattern(2'500'000)); // several chunks
    writeFile(source / "empty", "");
    fs::create_directories(source / "empty-dir");
    fs::create_symlink("src/main.cpp", source / "main-link");

    QTemporaryDir agentDir;
    const fs::path workspace = agentDir.path().toStdString();
    auto pulled = agent::pullTree(plane.channel(), "workspace", workspace);
    QVERIFY2(pulled, pulled ? "" : pulled.error().message.c_str());
    QCOMPARE(listing(workspace), listing(source));
    QCOMPARE(pulled->files, 5u);
    QVERIFY(plane.lines >= 3); // 2.5 MB in chunks of at most 1 MiB
}

void TreeTransferTest::pullLeavesOutWhatTheArchiveCannotHold() {
    ControlPlane plane;
    const fs::path source = plane.root / "workspace";
    writeFile(source / "kept.txt", "kept");
    fs::create_symlink("/etc/passwd", source / "absolute");
    fs::create_symlink("../../outside", source / "climbs");
    fs::create_directories(source / "sub");
    fs::create_symlink("..", source / "sub/up");
    fs::create_symlink("sub/up/..", source / "through-links");
    QVERIFY(::mkfifo((source / "fifo").c_str(), 0600) == 0);

    QTemporaryDir agentDir;
    const fs::path workspace = agentDir.path().toStdString();
    auto pulled = agent::pullTree(plane.channel(), "workspace", workspace);
    QVERIFY2(pulled, pulled ? "" : pulled.error().message.c_str());
    const QStringList expected{"kept.txt:   4 kept", "sub: dir", "sub/up: -> .."};
    QCOMPARE(listing(workspace), expected);
}

void TreeTransferTest::pushReplacesTheControlPlanesTree() {
    ControlPlane plane;
    writeFile(plane.root / "workspace/old.txt", "old");
    writeFile(plane.root / "workspace/kept.txt", "before");

    QTemporaryDir agentDir;
    const fs::path workspace = agentDir.path().toStdString();
    writeFile(workspace / "kept.txt", "after");
    writeFile(workspace / "new/deep/file.txt", "new");
    writeFile(workspace / "large.bin", pattern(3'000'000));
    writeFile(workspace / "bin/tool", "#!/bin/sh\n", fs::perms(0755));
    fs::create_symlink("/usr/bin/python3", workspace / "python"); // left out, not a refusal of the whole
    auto pushed = agent::pushTree(plane.channel(), "workspace", workspace);
    QVERIFY2(pushed, pushed ? "" : pushed.error().message.c_str());
    QCOMPARE(pushed->size(), 1u);
    QCOMPARE(pushed->front().path, std::string("python"));

    auto expected = listing(workspace);
    expected.removeAll("python: -> /usr/bin/python3");
    QCOMPARE(listing(plane.root / "workspace"), expected);
    QVERIFY(fs::is_empty(plane.root / "scratch")); // the archive and the old tree are gone
}

void TreeTransferTest::pushedHostileArchiveChangesNothing() {
    ControlPlane plane;
    writeFile(plane.root / "state/checkpoint.json", "{}");
    const auto before = listing(plane.root / "state");
    const std::string hostile = TarBuilder().file("fine.txt", "x").file("../escaped", "x").finish();
    auto call = plane.channel();
    auto answer = call(protocol::method::kWorkspacePush,
                       protocol::toJson(protocol::WorkspacePushParams{"state", 0, hostile, true}), {}, nullptr);
    QVERIFY(!answer);
    QVERIFY2(answer.error().message.find("..") != std::string::npos, answer.error().message.c_str());
    QCOMPARE(listing(plane.root / "state"), before);
    QVERIFY(!fs::exists(plane.root / "escaped"));
    QVERIFY(fs::is_empty(plane.root / "scratch"));

    // Over the cap (8 MiB here): refused before it is whole, the tree untouched.
    std::string refusal;
    for (std::uint64_t offset = 0; refusal.empty() && offset < (16u << 20); offset += protocol::kTransferChunkBytes) {
        auto chunk = call(protocol::method::kWorkspacePush,
                          protocol::toJson(protocol::WorkspacePushParams{
                              "state", offset, std::string(protocol::kTransferChunkBytes, '\0'), false}),
                          {}, nullptr);
        if (!chunk)
            refusal = chunk.error().message;
    }
    QVERIFY2(refusal.find("cap") != std::string::npos, refusal.c_str());
    QCOMPARE(listing(plane.root / "state"), before);
}

void TreeTransferTest::chunksMustFollowEachOther() {
    ControlPlane plane;
    writeFile(plane.root / "workspace/big.bin", pattern(2'000'000));
    auto call = plane.channel();
    auto first = call(protocol::method::kWorkspacePull, protocol::toJson(protocol::WorkspacePullParams{"workspace", 0}),
                      {}, nullptr);
    QVERIFY(first);
    auto skipped = call(protocol::method::kWorkspacePull,
                        protocol::toJson(protocol::WorkspacePullParams{"workspace", 5}), {}, nullptr);
    QVERIFY(!skipped);
    QVERIFY2(skipped.error().message.find("start again at 0") != std::string::npos, skipped.error().message.c_str());

    auto gap = call(protocol::method::kWorkspacePush,
                    protocol::toJson(protocol::WorkspacePushParams{"output", 512, "x", false}), {}, nullptr);
    QVERIFY(!gap);
    QVERIFY2(gap.error().message.find("does not follow") != std::string::npos, gap.error().message.c_str());
}

void TreeTransferTest::needsTheTreesScope() {
    ControlPlane plane;
    writeFile(plane.root / "workspace/secret.txt", "secret");
    QTemporaryDir agentDir;
    const auto withoutScope = plane.tokens.issue("t-1", {scope::kLlm, scope::kMemory}, std::chrono::minutes(5));
    auto pulled = agent::pullTree(plane.channel(withoutScope), "workspace", agentDir.path().toStdString());
    QVERIFY(!pulled);
    QVERIFY2(pulled.error().message.find("unauthorized") != std::string::npos, pulled.error().message.c_str());
    QVERIFY(fs::is_empty(agentDir.path().toStdString()));

    const auto otherTask = plane.tokens.issue("t-2", {scope::kTrees}, std::chrono::minutes(5));
    QTemporaryDir other;
    QVERIFY(!agent::pushTree(plane.channel(otherTask), "workspace", other.path().toStdString()));
    QCOMPARE(listing(plane.root / "workspace").size(), 1u);
}

void TreeTransferTest::aTaskWithoutTreesRefuses() {
    QTemporaryDir dir;
    auto store = openSqliteStore(dir.filePath("warren.db").toStdString());
    QVERIFY(store);
    TaskTokens tokens;
    ToolProxy::Settings settings;
    settings.taskId = "t-1";
    ToolProxy proxy(settings, tokens, **store, nullptr);
    json params = protocol::toJson(protocol::WorkspacePullParams{"workspace", 0});
    params[protocol::kTokenParam] = tokens.issue("t-1", {scope::kTrees}, std::chrono::minutes(5));
    std::optional<protocol::Message> reply;
    proxy.handle(protocol::Request{1, protocol::method::kWorkspacePull, params},
                 [&](protocol::Message message) { reply = message; });
    QVERIFY(reply);
    const auto* error = std::get_if<protocol::ErrorResponse>(&*reply);
    QVERIFY(error);
    QCOMPARE(error->error.code, protocol::rpc_error::kMethodNotFound);
}

void TreeTransferTest::refusesAForgedArchive_data() {
    QTest::addColumn<QByteArray>("archive");
    QTest::addColumn<QString>("reason");
    const auto row = [](const char* name, const std::string& archive, const char* reason) {
        QTest::newRow(name) << QByteArray::fromStdString(archive) << QString(reason);
    };
    // Each starts with harmless entries, so the agent has something to remove.
    const auto start = [] { return TarBuilder().directory("src").file("src/a.txt", "a"); };
    row("dot-dot", start().file("../escaped", "x").finish(), "..");
    row("dot-dot inside", start().file("src/../../escaped", "x").finish(), "..");
    row("absolute", start().file("/tmp/escaped", "x").finish(), "absolute");
    row("link out, then through it",
        start().symlink("out", "../..").file("out/escaped", "x").finish(), "outside");
    row("absolute link", start().symlink("passwd", "/etc/passwd").finish(), "absolute");
    row("hard link", start().entry(TarHeader::named("hard").typed('1').linkingTo("/etc/passwd")).finish(),
        "hard link");
    row("character device", start().entry(TarHeader::named("null").typed('3')).finish(), "device");
    row("block device", start().entry(TarHeader::named("sda").typed('4')).finish(), "device");
    row("fifo", start().entry(TarHeader::named("pipe").typed('6')).finish(), "FIFO");
    row("file twice", start().file("src/a.txt", "again").finish(), "twice");
    row("larger than the cap", start().file("huge", std::string(2048, 'x')).finish(), "bytes");
    row("declared larger than sent", start().entry(TarHeader::named("cut").declaring(1u << 30), "x").unfinished(),
        "");
    row("not a tar", std::string(2048, 'z'), "tar");
}

void TreeTransferTest::refusesAForgedArchive() {
    QFETCH(QByteArray, archive);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    const fs::path workspace = root / "workspace";
    fs::create_directories(workspace);
    tar::UploadLimits limits;
    limits.maxTotalBytes = 1024;
    auto pulled = agent::pullTree(forgedPlane(archive.toStdString()), "workspace", workspace, limits);
    QVERIFY(!pulled);
    QVERIFY2(pulled.error().message.find(reason.toStdString()) != std::string::npos,
             pulled.error().message.c_str());
    QVERIFY(fs::is_empty(workspace));
    QCOMPARE(listing(root).size(), 1u); // the workspace alone: nothing beside it
    QVERIFY(!fs::exists("/tmp/escaped"));
}

void TreeTransferTest::pullNeedsAnEmptyDirectory() {
    ControlPlane plane;
    QTemporaryDir agentDir;
    const fs::path workspace = agentDir.path().toStdString();
    writeFile(workspace / "mine.txt", "mine");
    auto pulled = agent::pullTree(plane.channel(), "workspace", workspace);
    QVERIFY(!pulled);
    QVERIFY2(pulled.error().message.find("not an empty directory") != std::string::npos,
             pulled.error().message.c_str());
    QCOMPARE(readFile(workspace / "mine.txt"), std::string("mine"));
}

QTEST_GUILESS_MAIN(TreeTransferTest)
#include "tst_tree_transfer.moc"
