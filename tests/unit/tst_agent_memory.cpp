// AgentMemory on each backend: entries are stored, found and kept apart by namespace; the filesystem
// backend lays them out under <dir>/<prefix>/<namespace>/ and says what to do when the store is missing;
// bad names are refused before they reach a backend; write-behind writes nothing before the interval and
// everything after it or at flush(); the host backend sends exactly the protocol's params and surfaces
// the control plane's errors as messages.

#include "agent_core/memory/AgentMemory.h"
#include "agent_core/memory/FileMemoryBackend.h"
#include "agent_core/memory/HostMemoryBackend.h"
#include "agent_core/memory/InMemoryBackend.h"
#include "agent_core/memory/MemoryBackendFactory.h"
#include "agent_core/memory/MemoryRanking.h"

#include <QtTest>
#include <unistd.h>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// A control plane that keeps entries like the real store (prefixing keys itself) and logs each request.
struct FakeControlPlane {
    std::string prefix = "tenant-1/";
    std::map<std::pair<std::string, std::string>, std::string> store; // (ns, prefixed key) -> value
    std::vector<std::pair<std::string, json>> requests;

    HostMemoryCall call() {
        return [this](const std::string& method, const json& params) -> Result<json> {
            requests.emplace_back(method, params);
            if (method == "memory.put") {
                store[{params.at("namespace"), prefix + params.at("key").get<std::string>()}] =
                    params.at("value");
                return json::object();
            }
            if (method == "memory.get") {
                const auto it =
                    store.find({params.at("namespace"), prefix + params.at("key").get<std::string>()});
                if (it == store.end())
                    return json{{"found", false}, {"value", nullptr}};
                return json{{"found", true}, {"value", it->second}};
            }
            if (method == "memory.search") {
                std::vector<MemoryEntry> all;
                for (const auto& [name, value] : store)
                    all.push_back({name.first, name.second.substr(prefix.size()), value});
                json hits = json::array();
                for (const auto& hit : rankMemory(all, params.at("query").get<std::string>(),
                                                  params.at("limit").get<std::size_t>(), false))
                    hits.push_back({{"namespace", hit.ns}, {"key", hit.key}, {"value", hit.value}});
                return json{{"hits", hits}};
            }
            return makeError(ErrorCode::InvalidArgument, "unknown method " + method);
        };
    }
};

// A backend that fails its puts while failing is set, counting what reaches it.
class FlakyBackend : public MemoryBackend {
public:
    bool failing = false;
    int puts = 0;
    int gets = 0;
    InMemoryBackend inner;

    Result<std::optional<std::string>> get(const std::string& ns, const std::string& key) override {
        ++gets;
        return inner.get(ns, key);
    }
    Status put(const MemoryEntry& entry) override {
        if (failing)
            return makeError(ErrorCode::System, "the store is down");
        ++puts;
        return inner.put(entry);
    }
    Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit, bool ranked) override {
        return inner.search(query, limit, ranked);
    }
};

struct FakeClock {
    std::chrono::steady_clock::time_point now{std::chrono::hours(1000)};
    AgentMemory::Clock function() {
        return [this] {
            return now;
        };
    }
};

QStringList namesOf(const std::vector<MemoryEntry>& entries) {
    QStringList names;
    for (const auto& entry : entries)
        names << QString::fromStdString(entry.ns + "/" + entry.key + "=" + entry.value);
    return names;
}

QString messageOf(const Error& error) {
    return QString::fromStdString(error.message);
}

std::unique_ptr<MemoryBackend> fileBackend(const QTemporaryDir& dir, const std::string& prefix = "") {
    auto backend =
        makeMemoryBackend(MemoryBackendKind::Filesystem, dir.path().toStdString(), prefix, nullptr);
    if (!backend)
        qFatal("%s", backend.error().message.c_str());
    return std::move(backend).value();
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestAgentMemory : public QObject {
    Q_OBJECT

private slots:
    void storesFindsAndSeparatesNamespaces_data() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("in memory") << "memory";
        QTest::newRow("files") << "files";
        QTest::newRow("host") << "host";
    }

    void storesFindsAndSeparatesNamespaces() {
        QFETCH(QString, backend);
        QTemporaryDir dir;
        FakeControlPlane host;
        std::unique_ptr<MemoryBackend> store;
        if (backend == "memory")
            store = std::make_unique<InMemoryBackend>();
        else if (backend == "files")
            store = fileBackend(dir, "user-1");
        else
            store = std::make_unique<HostMemoryBackend>(host.call());
        AgentMemory memory(std::move(store), {});

        QVERIFY(memory.save("default", "build-command", "cmake --build build").ok());
        QVERIFY(memory.save("notes", "build-command", "make -j2 in notes").ok());
        QVERIFY(memory.save("default", "test command", "ctest --output-on-failure").ok());
        QVERIFY(memory.save("default", "build-command", "cmake --build build -j4").ok()); // replaces

        const auto loaded = memory.load("default", "build-command");
        QVERIFY(loaded.ok() && loaded->has_value());
        QCOMPARE(**loaded, std::string("cmake --build build -j4"));
        QCOMPARE(memory.load("notes", "build-command").value().value_or(""),
                 std::string("make -j2 in notes"));
        QCOMPARE(memory.load("default", "test command").value().value_or(""),
                 std::string("ctest --output-on-failure"));
        const auto missing = memory.load("other", "build-command");
        QVERIFY(missing.ok());
        QVERIFY(!missing->has_value());

        memory.shedCaches(); // search from the backend alone
        const auto hits = memory.search("BUILD", 10);
        QVERIFY2(hits.ok(), hits.ok() ? "" : hits.error().message.c_str());
        QCOMPARE(namesOf(hits.value()), (QStringList{"default/build-command=cmake --build build -j4",
                                                     "notes/build-command=make -j2 in notes"}));
        QCOMPARE(namesOf(memory.search("command", 1).value()),
                 QStringList{"default/build-command=cmake --build build -j4"});
        QCOMPARE(memory.pendingWrites(), std::size_t(0));
    }

    void semanticIndexRanks() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {"", 0, true, {}});
        QVERIFY(memory.save("default", "a", "tests are slow").ok());
        QVERIFY(memory.save("default", "b", "configure with cmake").ok());
        QVERIFY(memory.save("default", "c", "tests pass").ok());
        QCOMPARE(namesOf(memory.search("cmake tests", 10).value()),
                 (QStringList{"default/b=configure with cmake", "default/c=tests pass",
                              "default/a=tests are slow"}));
        // Substring mode would find nothing for two words that never occur together.
        AgentMemory plain(std::make_unique<InMemoryBackend>(), {});
        QVERIFY(plain.save("default", "b", "configure with cmake").ok());
        QCOMPARE(plain.search("cmake tests", 10).value().size(), std::size_t(0));
    }

    void filesLieUnderPrefixAndNamespace() {
        QTemporaryDir dir;
        AgentMemory memory(fileBackend(dir, "user-1/task-2"), {});
        QVERIFY(memory.save("notes", "build command", "make").ok());
        QVERIFY(memory.save("default", ".hidden/../key", "v").ok());

        const QString file = dir.filePath("user-1/task-2/notes/build%20command");
        QVERIFY2(QFileInfo(file).isFile(), qPrintable(file));
        QCOMPARE(json::parse(readFile(file).toStdString()),
                 (json{{"namespace", "notes"}, {"key", "build command"}, {"value", "make"}}));
        QVERIFY(QFileInfo(dir.filePath("user-1/task-2/default/%2Ehidden%2F..%2Fkey")).isFile());
        QCOMPARE(QDir(dir.filePath("user-1/task-2/notes")).entryList(QDir::Files | QDir::Hidden),
                 QStringList{"build%20command"});

        // Another prefix sees none of it.
        AgentMemory other(fileBackend(dir, "user-2"), {});
        QVERIFY(!other.load("notes", "build command").value().has_value());
        QCOMPARE(other.search("", 10).value().size(), std::size_t(0));
        // The same prefix, in a new process, sees all of it.
        AgentMemory again(fileBackend(dir, "user-1/task-2"), {});
        QCOMPARE(again.load("notes", "build command").value().value_or(""), std::string("make"));
        QCOMPARE(again.search("", 10).value().size(), std::size_t(2));
    }

    void keyFileNames_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << "build-command_2.txt"
                               << "build-command_2.txt";
        QTest::newRow("slash") << "a/b"
                               << "a%2Fb";
        QTest::newRow("leading dot") << ".env"
                                     << "%2Eenv";
        QTest::newRow("dot dot") << ".."
                                 << "%2E.";
        QTest::newRow("percent and tilde") << "50%~"
                                           << "50%25%7E";
        QTest::newRow("space and UTF-8") << "für x"
                                         << "f%C3%BCr%20x";
        QTest::newRow("control byte") << "a\nb"
                                      << "a%0Ab";
    }

    void keyFileNames() {
        QFETCH(QString, key);
        QFETCH(QString, name);
        QCOMPARE(QString::fromStdString(encodeMemoryKey(key.toStdString())), name);
    }

    void longKeysGetShortDistinctNames() {
        const std::string base(300, 'k');
        const auto first = encodeMemoryKey(base + "1");
        const auto second = encodeMemoryKey(base + "2");
        QCOMPARE(first.size(), std::size_t(180 + 1 + 16));
        QCOMPARE(first.substr(0, 181), std::string(180, 'k') + "~");
        QVERIFY(first != second);
        // An escape is never cut in two.
        const auto escaped = encodeMemoryKey(std::string(179, 'k') + std::string(50, '/'));
        QCOMPARE(escaped.substr(0, 180), std::string(179, 'k') + "~");

        QTemporaryDir dir;
        AgentMemory memory(fileBackend(dir), {});
        QVERIFY(memory.save("default", base + "1", "one").ok());
        QVERIFY(memory.save("default", base + "2", "two").ok());
        memory.shedCaches();
        QCOMPARE(memory.load("default", base + "1").value().value_or(""), std::string("one"));
        QCOMPARE(memory.load("default", base + "2").value().value_or(""), std::string("two"));
        QCOMPARE(namesOf(memory.search("two", 10).value()),
                 QStringList{QString::fromStdString("default/" + base + "2=two")});
    }

    void tempFilesAndStrayDirectoriesAreNotEntries() {
        QTemporaryDir dir;
        AgentMemory memory(fileBackend(dir), {});
        QVERIFY(memory.save("default", "k", "value").ok());
        QFile temp(dir.filePath("default/.k.tmp-12345678"));
        QVERIFY(temp.open(QIODevice::WriteOnly));
        temp.write("{\"namespace\":\"def");
        temp.close();
        QVERIFY(QDir(dir.path()).mkpath(".trash/x"));
        QCOMPARE(namesOf(memory.search("", 10).value()), QStringList{"default/k=value"});
    }

    void corruptEntryIsReported() {
        QTemporaryDir dir;
        AgentMemory memory(fileBackend(dir), {});
        QVERIFY(memory.save("default", "k", "value").ok());
        memory.shedCaches();
        QFile file(dir.filePath("default/k"));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{\"namespace\":\"default\",\"key\":\"k\"}");
        file.close();
        const QString expected =
            "memory entry " + dir.filePath("default/k") + " is corrupt: entry.value: missing; move it away";
        const auto loaded = memory.load("default", "k");
        QVERIFY(!loaded.ok());
        QCOMPARE(messageOf(loaded.error()), expected);
        const auto hits = memory.search("x", 10);
        QVERIFY(!hits.ok());
        QCOMPARE(messageOf(hits.error()), expected);
    }

    void invalidPrefixIsRefused_data() {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("message");
        QTest::newRow("parent") << "../x"
                                << "memory_prefix \"../x\": has a \"..\" segment";
        QTest::newRow("parent inside") << "a/../b"
                                       << "memory_prefix \"a/../b\": has a \"..\" segment";
        QTest::newRow("dot") << "a/./b"
                             << "memory_prefix \"a/./b\": has a \".\" segment";
        QTest::newRow("absolute")
            << "/etc"
            << "memory_prefix \"/etc\": has an empty segment (a leading, trailing or double '/')";
        QTest::newRow("double slash")
            << "a//b"
            << "memory_prefix \"a//b\": has an empty segment (a leading, trailing or double '/')";
        QTest::newRow("trailing slash")
            << "a/"
            << "memory_prefix \"a/\": has an empty segment (a leading, trailing or double '/')";
        QTest::newRow("space") << "a b"
                               << "memory_prefix \"a b\": use segments of A-Z a-z 0-9 . _ - separated by '/'";
        QTest::newRow("too long") << QString(513, 'a')
                                  << "memory_prefix \"" + QString(513, 'a') + "\": longer than 512 bytes";
    }

    void invalidPrefixIsRefused() {
        QFETCH(QString, prefix);
        QFETCH(QString, message);
        QTemporaryDir dir;
        for (const auto kind : {MemoryBackendKind::Filesystem, MemoryBackendKind::InMemory}) {
            const auto backend =
                makeMemoryBackend(kind, dir.path().toStdString(), prefix.toStdString(), nullptr);
            QVERIFY(!backend.ok());
            QCOMPARE(messageOf(backend.error()), message);
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{});
    }

    void validPrefixes_data() {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("empty") << "";
        QTest::newRow("one segment") << "user-42";
        QTest::newRow("nested") << "user_42/task.7/run-1";
        QTest::newRow("dots inside a segment") << "a..b";
    }

    void validPrefixes() {
        QFETCH(QString, prefix);
        QTemporaryDir dir;
        const auto backend = makeMemoryBackend(MemoryBackendKind::Filesystem, dir.path().toStdString(),
                                               prefix.toStdString(), nullptr);
        QVERIFY2(backend.ok(), backend.ok() ? "" : backend.error().message.c_str());
        QVERIFY(QFileInfo(dir.filePath(prefix)).isDir());
    }

    void invalidNamesAreRefused_data() {
        QTest::addColumn<QString>("ns");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QString>("message");
        const QString rule = "\": use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'";
        QTest::newRow("empty namespace") << "" << QByteArray("k") << "namespace \"" + rule;
        QTest::newRow("namespace with slash") << "a/b" << QByteArray("k") << "namespace \"a/b" + rule;
        QTest::newRow("namespace ..") << ".." << QByteArray("k") << "namespace \"..\"" + rule.mid(1);
        QTest::newRow("hidden namespace") << ".cache" << QByteArray("k") << "namespace \".cache" + rule;
        QTest::newRow("namespace of 65")
            << QString(65, 'n') << QByteArray("k") << "namespace \"" + QString(65, 'n') + rule;
        QTest::newRow("non-ASCII namespace")
            << "notizen-ü" << QByteArray("k") << "namespace \"notizen-ü" + rule;
        QTest::newRow("empty key") << "default" << QByteArray() << "key: is empty";
        QTest::newRow("key of 1025 bytes")
            << "default" << QByteArray(1025, 'k') << "key: is 1025 bytes long; at most 1024 are allowed";
        QTest::newRow("key not UTF-8") << "default" << QByteArray("k\xff") << "key: is not valid UTF-8";
    }

    void invalidNamesAreRefused() {
        QFETCH(QString, ns);
        QFETCH(QByteArray, key);
        QFETCH(QString, message);
        auto backend = std::make_unique<FlakyBackend>();
        FlakyBackend& seen = *backend;
        AgentMemory memory(std::move(backend), {});
        const auto saved = memory.save(ns.toStdString(), key.toStdString(), "v");
        QVERIFY(!saved.ok());
        QCOMPARE(messageOf(saved.error()), message);
        const auto loaded = memory.load(ns.toStdString(), key.toStdString());
        QVERIFY(!loaded.ok());
        QCOMPARE(messageOf(loaded.error()), message);
        QCOMPARE(seen.puts + seen.gets, 0);
        // The filesystem backend checks for itself too.
        QTemporaryDir dir;
        FileMemoryBackend files(dir.path().toStdString());
        const auto put = files.put({ns.toStdString(), key.toStdString(), "v"});
        QVERIFY(!put.ok());
        QCOMPARE(messageOf(put.error()), message);
    }

    void invalidValuesAreRefused() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        const auto huge = memory.save("default", "k", std::string(1024 * 1024 + 1, 'v'));
        QVERIFY(!huge.ok());
        QVERIFY2(
            messageOf(huge.error()).startsWith("value: is 1048577 bytes long; at most 1048576 are allowed"),
            qPrintable(messageOf(huge.error())));
        const auto binary = memory.save("default", "k", "\xc0\xaf");
        QVERIFY(!binary.ok());
        QCOMPARE(messageOf(binary.error()), "value: is not valid UTF-8");
        QVERIFY(memory.save("default", "k", std::string(1024 * 1024, 'v')).ok());
    }

    void missingStoreSaysWhatToDo_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("no such directory") << "absent";
        QTest::newRow("a file") << "file";
    }

    void missingStoreSaysWhatToDo() {
        QFETCH(QString, what);
        QTemporaryDir dir;
        const QString root = dir.filePath("memories");
        QString reason = "No such file or directory";
        if (what == "file") {
            QFile file(root);
            QVERIFY(file.open(QIODevice::WriteOnly));
            reason = "it is not a directory";
        }
        const auto backend =
            makeMemoryBackend(MemoryBackendKind::Filesystem, root.toStdString(), "user-1", nullptr);
        QVERIFY(!backend.ok());
        QCOMPARE(messageOf(backend.error()), "memory store " + root + " is not available: " + reason +
                                                 "; mount one or use --preset local-light");
        QVERIFY(!QFileInfo::exists(root + "/user-1"));
    }

    void storeThatVanishesIsReported() {
        QTemporaryDir dir;
        const QString root = dir.filePath("memories");
        QVERIFY(QDir().mkdir(root));
        AgentMemory memory(fileBackend(dir, "memories/p"), {"memories/p", 0, false, {}});
        QVERIFY(memory.save("default", "k", "v").ok());
        QVERIFY(QDir(root).removeRecursively());
        const QString expected = "memory store " + dir.filePath("memories/p") +
                                 " is not available: No such file or directory; mount one or use --preset "
                                 "local-light (memory_prefix \"memories/p\")";
        const auto saved = memory.save("default", "k2", "v");
        QVERIFY(!saved.ok());
        QCOMPARE(messageOf(saved.error()), expected);
        const auto loaded = memory.load("default", "other");
        QVERIFY(!loaded.ok());
        QCOMPARE(messageOf(loaded.error()), expected);
        const auto hits = memory.search("v", 10);
        QVERIFY(!hits.ok());
        QCOMPARE(messageOf(hits.error()), expected);
    }

    void readOnlyStoreIsReported() {
        if (::geteuid() == 0)
            QSKIP("root writes to a directory whatever its mode");
        QTemporaryDir dir;
        const QString root = dir.filePath("memories");
        QVERIFY(QDir().mkdir(root));
        QVERIFY(QFile::setPermissions(root, QFile::ReadOwner | QFile::ExeOwner));
        const auto backend =
            makeMemoryBackend(MemoryBackendKind::Filesystem, root.toStdString(), "", nullptr);
        QVERIFY(!backend.ok());
        QCOMPARE(messageOf(backend.error()),
                 "memory store " + root +
                     " is not writable: Permission denied; mount it read-write or use "
                     "--preset local-light");
        QVERIFY(QFile::setPermissions(root, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }

    void hostBackendNeedsAControlPlane() {
        const auto backend = makeMemoryBackend(MemoryBackendKind::Host, "/nonexistent", "p", nullptr);
        QVERIFY(!backend.ok());
        QCOMPARE(messageOf(backend.error()),
                 "memory_backend host needs the control plane, and this agent runs without one");
        FakeControlPlane host;
        QVERIFY(makeMemoryBackend(MemoryBackendKind::Host, "/nonexistent", "p", host.call()).ok());
        QVERIFY(makeMemoryBackend(MemoryBackendKind::InMemory, "/nonexistent", "p", nullptr).ok());
    }

    void writeBehindWaitsForTheInterval() {
        QTemporaryDir dir;
        FakeClock clock;
        AgentMemory memory(fileBackend(dir), {"", 30, false, clock.function()});
        const QString file = dir.filePath("default/k");

        clock.now += 5s;
        QVERIFY(memory.save("default", "k", "first").ok());
        QVERIFY(memory.save("default", "k", "second").ok());
        QVERIFY(memory.save("notes", "n", "note").ok());
        QCOMPARE(memory.pendingWrites(), std::size_t(2));
        QVERIFY(!QFileInfo::exists(file));
        // Buffered values are seen.
        QCOMPARE(memory.load("default", "k").value().value_or(""), std::string("second"));
        QCOMPARE(namesOf(memory.search("second", 10).value()), QStringList{"default/k=second"});

        clock.now += 24s; // 29 s since the start
        QVERIFY(memory.flushIfDue().ok());
        QVERIFY(!QFileInfo::exists(file));
        QCOMPARE(memory.pendingWrites(), std::size_t(2));

        clock.now += 1s; // 30 s
        QVERIFY(memory.flushIfDue().ok());
        QVERIFY(QFileInfo::exists(file));
        QVERIFY(QFileInfo::exists(dir.filePath("notes/n")));
        QCOMPARE(memory.pendingWrites(), std::size_t(0));
        QCOMPARE(json::parse(readFile(file).toStdString()).at("value"), json("second"));

        // The interval starts again at that flush; flush() writes at once.
        clock.now += 10s;
        QVERIFY(memory.save("default", "later", "x").ok());
        QVERIFY(!QFileInfo::exists(dir.filePath("default/later")));
        QVERIFY(memory.flush().ok());
        QVERIFY(QFileInfo::exists(dir.filePath("default/later")));
        QCOMPARE(memory.pendingWrites(), std::size_t(0));
    }

    void writeBehindFlushesOnTheNextCallPastTheInterval() {
        QTemporaryDir dir;
        FakeClock clock;
        AgentMemory memory(fileBackend(dir), {"", 60, false, clock.function()});
        QVERIFY(memory.save("default", "a", "1").ok());
        clock.now += 61s;
        QVERIFY(!QFileInfo::exists(dir.filePath("default/a")));
        QVERIFY(memory.load("default", "b").ok()); // any call checks
        QVERIFY(QFileInfo::exists(dir.filePath("default/a")));
    }

    void withoutIntervalEverySaveIsWritten() {
        QTemporaryDir dir;
        FakeClock clock;
        AgentMemory memory(fileBackend(dir), {"", 0, false, clock.function()});
        QVERIFY(memory.save("default", "k", "v").ok());
        QVERIFY(QFileInfo::exists(dir.filePath("default/k")));
        QCOMPARE(memory.pendingWrites(), std::size_t(0));
        QVERIFY(!memory.writesBehind());
    }

    void bufferedWritesReplaceStoredOnesInSearch() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {"", 30, false, {}});
        QVERIFY(memory.flush().ok());
        QVERIFY(memory.save("default", "pet", "likes cats").ok());
        QVERIFY(memory.flush().ok());
        QVERIFY(memory.save("default", "pet", "likes dogs").ok());
        QCOMPARE(memory.pendingWrites(), std::size_t(1));
        QCOMPARE(memory.search("cats", 10).value().size(), std::size_t(0));
        QCOMPARE(namesOf(memory.search("likes", 10).value()), QStringList{"default/pet=likes dogs"});
    }

    void failedFlushKeepsWhatItCouldNotWrite() {
        auto backend = std::make_unique<FlakyBackend>();
        FlakyBackend& store = *backend;
        FakeClock clock;
        AgentMemory memory(std::move(backend), {"user-1", 10, false, clock.function()});
        store.failing = true;
        QVERIFY(memory.save("default", "a", "1").ok());
        QVERIFY(memory.save("default", "b", "2").ok());
        clock.now += 11s;
        QVERIFY(memory.save("default", "c", "3").ok()); // buffered; its flush attempt failed quietly
        const auto flushed = memory.flushIfDue();
        QVERIFY(!flushed.ok());
        QCOMPARE(messageOf(flushed.error()),
                 "the store is down; 3 saved memories are not written yet: they are "
                 "kept and retried (memory_prefix \"user-1\")");
        QCOMPARE(memory.pendingWrites(), std::size_t(3));
        memory.shedCaches();
        QCOMPARE(memory.pendingWrites(), std::size_t(3));
        QCOMPARE(memory.load("default", "b").value().value_or(""), std::string("2"));

        store.failing = false;
        QVERIFY(memory.flushIfDue().ok());
        QCOMPARE(memory.pendingWrites(), std::size_t(0));
        QCOMPARE(store.puts, 3);
        QCOMPARE(store.inner.get("default", "c").value().value_or(""), std::string("3"));
    }

    void failedImmediateSaveIsReported() {
        auto backend = std::make_unique<FlakyBackend>();
        backend->failing = true;
        AgentMemory memory(std::move(backend), {});
        const auto saved = memory.save("default", "a", "1");
        QVERIFY(!saved.ok());
        QCOMPARE(messageOf(saved.error()), "the store is down");
        QVERIFY(!memory.load("default", "a").value().has_value());
    }

    void readCacheIsUsedAndShed() {
        auto backend = std::make_unique<FlakyBackend>();
        FlakyBackend& store = *backend;
        QVERIFY(store.inner.put({"default", "k", "v"}).ok());
        AgentMemory memory(std::move(backend), {});
        QCOMPARE(memory.load("default", "k").value().value_or(""), std::string("v"));
        QCOMPARE(memory.load("default", "k").value().value_or(""), std::string("v"));
        QCOMPARE(store.gets, 1);
        QCOMPARE(memory.cachedEntries(), std::size_t(1));
        memory.shedCaches();
        QCOMPARE(memory.cachedEntries(), std::size_t(0));
        QCOMPARE(memory.load("default", "k").value().value_or(""), std::string("v"));
        QCOMPARE(store.gets, 2);
        // A missing key is asked for every time: another task may save it.
        QVERIFY(!memory.load("default", "nothing").value().has_value());
        QVERIFY(!memory.load("default", "nothing").value().has_value());
        QCOMPARE(store.gets, 4);
    }

    void readCacheIsBounded() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        for (int i = 0; i < 1100; ++i)
            QVERIFY(memory.save("default", QByteArray::number(i).prepend('k').toStdString(), "v").ok());
        QCOMPARE(memory.cachedEntries(), AgentMemory::kCacheEntries);
        const std::string big(AgentMemory::kCacheBytes / 2 + 1, 'b');
        QVERIFY(memory.save("default", "big1", big).ok());
        QVERIFY(memory.save("default", "big2", big).ok());
        QCOMPARE(memory.cachedEntries(), std::size_t(1)); // big2 alone fits
        QCOMPARE(memory.load("default", "big1").value().value_or(""), big);
        QCOMPARE(memory.load("default", "k0").value().value_or(""), std::string("v"));
    }

    void hostBackendSendsTheProtocolsParams() {
        std::vector<std::pair<std::string, json>> requests;
        std::vector<json> replies = {json::object(),
                                     {{"found", true}, {"value", "cmake --build build"}},
                                     {{"found", false}, {"value", nullptr}},
                                     {{"hits",
                                       {{{"namespace", "notes"}, {"key", "a"}, {"value", "1"}},
                                        {{"namespace", "default"}, {"key", "b"}, {"value", "2"}},
                                        {{"namespace", "default"}, {"key", "c"}, {"value", "3"}}}}}};
        std::size_t next = 0;
        HostMemoryCall call = [&](const std::string& method, const json& params) -> Result<json> {
            requests.emplace_back(method, params);
            return replies.at(next++);
        };
        AgentMemory memory(std::make_unique<HostMemoryBackend>(call), {"tenant-1/task-9", 0, true, {}});

        QVERIFY(memory.save("notes", "build-command", "cmake --build build").ok());
        memory.shedCaches();
        QCOMPARE(memory.load("notes", "build-command").value().value_or(""),
                 std::string("cmake --build build"));
        QVERIFY(!memory.load("default", "absent").value().has_value());
        QCOMPARE(namesOf(memory.search("build", 2).value()), (QStringList{"notes/a=1", "default/b=2"}));

        // Keys go out unprefixed: the control plane applies the task's prefix itself.
        const std::vector<std::pair<std::string, json>> expected = {
            {"memory.put",
             {{"namespace", "notes"}, {"key", "build-command"}, {"value", "cmake --build build"}}},
            {"memory.get", {{"namespace", "notes"}, {"key", "build-command"}}},
            {"memory.get", {{"namespace", "default"}, {"key", "absent"}}},
            {"memory.search", {{"query", "build"}, {"limit", 2}, {"ranked", true}}},
        };
        QCOMPARE(requests.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(QString::fromStdString(requests[i].first), QString::fromStdString(expected[i].first));
            QCOMPARE(QString::fromStdString(requests[i].second.dump()),
                     QString::fromStdString(expected[i].second.dump()));
        }
    }

    void hostErrorsBecomeMessages_data() {
        QTest::addColumn<QString>("operation");
        QTest::addColumn<QString>("reply"); // JSON, or "error:<message>" for a failed call
        QTest::addColumn<QString>("message");
        QTest::newRow("get: call fails") << "get"
                                         << "error:the control plane went away"
                                         << "memory.get failed: the control plane went away";
        QTest::newRow("put: call fails") << "put"
                                         << "error:timed out after 30 s"
                                         << "memory.put failed: timed out after 30 s";
        QTest::newRow("search: call fails") << "search"
                                            << "error:-32000 memory store is locked"
                                            << "memory.search failed: -32000 memory store is locked";
        QTest::newRow("get: found not a bool") << "get"
                                               << R"({"found":"yes","value":"x"})"
                                               << "memory.get: the control plane's reply is malformed: "
                                                  "memory.get result.found: must be true or false, "
                                                  "got a string";
        QTest::newRow("get: unknown key")
            << "get"
            << R"({"found":false,"value":null,"ttl":3})"
            << "memory.get: the control plane's reply is malformed: memory.get result: "
               "unknown key \"ttl\"";
        QTest::newRow("put: not an object")
            << "put"
            << "true"
            << "memory.put: the control plane's reply is malformed: memory.put result: "
               "must be an object, got true";
        QTest::newRow("put: unexpected key")
            << "put"
            << R"({"ok":true})"
            << "memory.put: the control plane's reply is malformed: memory.put result: "
               "unknown key \"ok\"";
        QTest::newRow("search: hits missing")
            << "search"
            << "{}"
            << "memory.search: the control plane's reply is malformed: memory.search "
               "result.hits: missing";
    }

    void hostErrorsBecomeMessages() {
        QFETCH(QString, operation);
        QFETCH(QString, reply);
        QFETCH(QString, message);
        HostMemoryCall call = [&](const std::string&, const json&) -> Result<json> {
            if (reply.startsWith("error:"))
                return makeError(ErrorCode::System, reply.mid(6).toStdString());
            return json::parse(reply.toStdString());
        };
        AgentMemory memory(std::make_unique<HostMemoryBackend>(call), {"tenant-1", 0, false, {}});
        const QString suffix = " (memory_prefix \"tenant-1\")";
        Error error;
        if (operation == "get") {
            const auto result = memory.load("default", "k");
            QVERIFY(!result.ok());
            error = result.error();
        } else if (operation == "put") {
            const auto result = memory.save("default", "k", "v");
            QVERIFY(!result.ok());
            error = result.error();
        } else {
            const auto result = memory.search("k", 10);
            QVERIFY(!result.ok());
            error = result.error();
        }
        QCOMPARE(messageOf(error), message + suffix);
    }
};

QTEST_GUILESS_MAIN(TestAgentMemory)
#include "tst_agent_memory.moc"
