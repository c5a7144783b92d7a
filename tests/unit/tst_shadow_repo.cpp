// ShadowRepo against the real git on real files: what a shell does to a workspace (rm, mv, rename over,
// chmod +x, symbolic links, binary files, empty directories, a file replaced by a directory and back, a
// nested repository's files) is put back exactly by a rewind, and the rewind itself taken back; what is
// skipped is left alone and listed; the user's .git (and a nested one) stays byte-identical; a kill -9 in
// the middle of a snapshot or a rewind leaves both the workspace and the shadow repository usable.

#include "app/snapshots/ShadowRepo.h"
#include "tests/unit/UserRepository.h"

#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren;
using namespace warren::snapshots;
using namespace warren::test;

namespace {

using Kind = SnapshotMeta::Kind;

// What the agent's shell does in one step.
void shellSideEffects(const fs::path& ws) {
    fs::remove(ws / "README.md");                        // rm
    fs::rename(ws / "src/util.c", ws / "src/helpers.c"); // mv
    writeFile(ws / "replacement", "the new main\n");
    fs::rename(ws / "replacement", ws / "src/main.c"); // rename over
    writeFile(ws / "notes.txt", "edited\n");
    setExecutable(ws / "notes.txt", true); // chmod +x
    fs::remove(ws / "main-link");
    fs::create_symlink("src/helpers.c", ws / "main-link");   // a link retargeted
    fs::create_symlink("../README.md", ws / "src/dangling"); // a new, dangling link
    writeFile(ws / "data/blob.bin", binaryBytes(70000, 11)); // binary content
    fs::remove(ws / "empty/deeper");                         // an empty directory removed
    fs::create_directories(ws / "made/empty");               // and one made
    fs::remove_all(ws / "tools");
    writeFile(ws / "tools", "tools is a file now\n"); // a directory replaced by a file
    fs::remove(ws / "data/blob.bin");
    fs::create_directories(ws / "data/blob.bin");
    writeFile(ws / "data/blob.bin/inside", "a file replaced by a directory\n");
}

QString message(const Error& error) {
    return QString::fromStdString(error.message);
}

// Waits until a file named name appears in dir (created or renamed into place); false when nothing came.
bool waitForName(int inotifyFd, const std::string& name) {
    alignas(inotify_event) char buffer[4096];
    for (;;) {
        pollfd pfd{inotifyFd, POLLIN, 0};
        if (::poll(&pfd, 1, 120'000) <= 0) // only against a hang: the child was meant to get there
            return false;
        const ssize_t n = ::read(inotifyFd, buffer, sizeof buffer);
        if (n <= 0)
            return false;
        for (char* p = buffer; p < buffer + n;) {
            auto* event = reinterpret_cast<inotify_event*>(p);
            if (event->len && name == event->name)
                return true;
            p += sizeof(inotify_event) + event->len;
        }
    }
}

// Runs work in a child of its own process group (git's processes with it) until a file named trigger
// appears in watched, then kills the whole group with SIGKILL.
void killWhen(const fs::path& watched, const std::string& trigger, const std::function<void()>& work) {
    const int fd = ::inotify_init1(IN_CLOEXEC);
    QVERIFY(fd >= 0);
    QVERIFY(::inotify_add_watch(fd, watched.c_str(), IN_CREATE | IN_MOVED_TO) >= 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::setpgid(0, 0);
        work();
        ::_exit(0);
    }
    ::setpgid(child, child);
    const bool seen = waitForName(fd, trigger);
    ::kill(-child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(fd);
    QVERIFY2(seen, ("never saw " + trigger).c_str());
}

} // namespace

class ShadowRepoTest : public QObject {
    Q_OBJECT
private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_ws = fs::path(m_dir->path().toStdString()) / "ws";
        m_shadow = fs::path(m_dir->path().toStdString()) / "task/snapshots";
        fs::create_directories(m_ws);
    }

    void shellSideEffectsRewoundExactly() {
        makeUserRepository(m_ws);
        const QByteArray gitBefore = treeHash(m_ws / ".git");
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY2(repo.ok(), repo.ok() ? "" : repo.error().message.c_str());
        const QStringList before = snapshot(m_ws);
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        QCOMPARE(first->meta.emptyDirs, (std::vector<std::string>{"empty/deeper"}));

        shellSideEffects(m_ws);
        const QStringList after = snapshot(m_ws);
        QVERIFY(after != before);
        auto end = repo->snapshot(Kind::End, 2);
        QVERIFY(end.ok());

        // Review: the whole change, also what only the shell did.
        auto diff = repo->diff(*first, *end);
        QVERIFY(diff.ok());
        for (const char* path : {"a/README.md", "b/src/helpers.c", "a/src/util.c", "b/src/dangling",
                                 "b/data/blob.bin/inside", "b/tools", "a/tools/build.sh"})
            QVERIFY2(diff->find(path) != std::string::npos, path);

        auto target = repo->beforeStep(1);
        QVERIFY(target.ok());
        auto preview = repo->previewRewind(*target);
        QVERIFY(preview.ok());
        QCOMPARE(snapshot(m_ws), after); // a preview changes nothing
        auto rewound = repo->rewind(*target);
        QVERIFY2(rewound.ok(), rewound.ok() ? "" : rewound.error().message.c_str());
        QCOMPARE(rewound->plan, *preview);
        QCOMPARE(snapshot(m_ws), before);

        // The rewind taken back.
        auto undone = repo->rewind(rewound->undo);
        QVERIFY(undone.ok());
        QCOMPARE(snapshot(m_ws), after);

        QCOMPARE(treeHash(m_ws / ".git"), gitBefore);
    }

    // A fork's workspace: what a snapshot recorded, empty directories included, written elsewhere; the
    // workspace, its .git and the snapshots stay as they were.
    void copiedIntoAFork() {
        makeUserRepository(m_ws);
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        const QStringList before = snapshot(m_ws);
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY(first.ok());
        shellSideEffects(m_ws);
        auto second = repo->snapshot(Kind::Step, 2);
        QVERIFY(second.ok());
        const QStringList after = snapshot(m_ws);
        const QByteArray gitBefore = treeHash(m_ws / ".git");
        const QByteArray shadowBefore = treeHash(m_shadow);

        const fs::path fork = fs::path(m_dir->path().toStdString()) / "fork";
        fs::create_directories(fork);
        auto copied = repo->copyTo(*first, fork);
        QVERIFY2(copied.ok(), copied.ok() ? "" : copied.error().message.c_str());
        QCOMPARE(snapshot(fork), before);
        QVERIFY(fs::is_directory(fork / "empty/deeper"));
        QCOMPARE(snapshot(m_ws), after);
        QCOMPARE(treeHash(m_ws / ".git"), gitBefore);
        QCOMPARE(treeHash(m_shadow), shadowBefore);

        // Into a directory that holds something: refused, nothing written.
        auto refused = repo->copyTo(*second, fork);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("not an empty directory") != std::string::npos,
                 qPrintable(message(refused.error())));
        QCOMPARE(snapshot(fork), before);
    }

    void stepByStep() {
        writeFile(m_ws / "a", "1\n");
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        std::vector<QStringList> states;
        for (std::uint64_t step = 1; step <= 4; ++step) {
            states.push_back(snapshot(m_ws));
            QVERIFY(repo->snapshot(Kind::Step, step).ok());
            writeFile(m_ws / "a", std::to_string(step + 1) + "\n");
            writeFile(m_ws / ("file" + std::to_string(step)), "x\n");
        }
        for (std::uint64_t step : {3u, 1u, 4u, 2u}) {
            auto target = repo->beforeStep(step);
            QVERIFY(target.ok());
            QVERIFY(repo->rewind(*target).ok());
            QCOMPARE(snapshot(m_ws), states[step - 1]);
        }
        auto missing = repo->beforeStep(9);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message.find("1, 2, 3, 4") != std::string::npos,
                 qPrintable(message(missing.error())));
    }

    void oneFileReverted() {
        writeFile(m_ws / "keep", "1\n");
        writeFile(m_ws / "revert", "1\n");
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY(first.ok());
        writeFile(m_ws / "keep", "2\n");
        writeFile(m_ws / "revert", "2\n");
        QVERIFY(repo->rewind(*first, {"revert"}).ok());
        QCOMPARE(readFile(m_ws / "keep"), std::string("2\n"));
        QCOMPARE(readFile(m_ws / "revert"), std::string("1\n"));
    }

    void skippedLeftAloneAndListed() {
        writeFile(m_ws / "src.c", "1\n");
        writeFile(m_ws / "node_modules/pkg/index.js", "v1\n");
        writeFile(m_ws / ".gitignore", "*.log\n");
        writeFile(m_ws / "run.log", "first\n");
        ShadowRepo::Options options;
        options.rules.largeFileBytes = 1000;
        auto repo = ShadowRepo::open(m_shadow, m_ws, options);
        QVERIFY(repo.ok());
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY(first.ok());
        writeFile(m_ws / "src.c", "2\n");
        writeFile(m_ws / "node_modules/pkg/index.js", "v2\n");
        writeFile(m_ws / "run.log", "second\n");
        writeFile(m_ws / "big.bin", binaryBytes(5000, 3));
        auto end = repo->snapshot(Kind::End, 2);
        QVERIFY(end.ok());
        QCOMPARE(end->meta.skippedLarge, (std::vector<std::string>{"big.bin"}));
        QCOMPARE(end->meta.skippedDirs, (std::vector<std::string>{"node_modules"}));
        QVERIFY(repo->rewind(*first).ok());
        QCOMPARE(readFile(m_ws / "src.c"), std::string("1\n"));
        QCOMPARE(readFile(m_ws / "node_modules/pkg/index.js"), std::string("v2\n"));
        QCOMPARE(readFile(m_ws / "run.log"), std::string("second\n"));
        QCOMPARE(readFile(m_ws / "big.bin"), binaryBytes(5000, 3));
    }

    void nestedRepositoryRecordedNotRenamed() {
        writeFile(m_ws / "top.txt", "top\n");
        writeFile(m_ws / "vendor/lib/lib.c", "v1\n");
        git(m_ws / "vendor/lib", {"init", "-q"});
        git(m_ws / "vendor/lib", {"add", "-A"});
        git(m_ws / "vendor/lib", {"commit", "-qm", "lib"});
        fs::create_directories(m_ws / "fresh");
        git(m_ws / "fresh", {"init", "-q"}); // a repository with no commit and no file
        const QByteArray nestedGit = treeHash(m_ws / "vendor/lib/.git");
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        const QStringList before = snapshot(m_ws);
        writeFile(m_ws / "vendor/lib/lib.c", "v2\n");
        writeFile(m_ws / "vendor/lib/new.c", "new\n");
        auto end = repo->snapshot(Kind::End, 2);
        QVERIFY(end.ok());
        auto diff = repo->diff(*first, *end);
        QVERIFY(diff.ok());
        QVERIFY(diff->find("b/vendor/lib/new.c") != std::string::npos);
        QVERIFY(repo->rewind(*first).ok());
        QCOMPARE(snapshot(m_ws), before);
        QVERIFY(fs::is_directory(m_ws / "vendor/lib/.git"));
        QCOMPARE(treeHash(m_ws / "vendor/lib/.git"), nestedGit);
    }

    void killedDuringSnapshot() {
        makeUserRepository(m_ws);
        for (int i = 0; i < 300; ++i)
            writeFile(m_ws / "many" / std::to_string(i), std::to_string(i) + "\n");
        const QByteArray gitBefore = treeHash(m_ws / ".git");
        {
            auto repo = ShadowRepo::open(m_shadow, m_ws);
            QVERIFY(repo.ok());
            QVERIFY(repo->snapshot(Kind::Step, 1).ok());
        }
        const QStringList before = snapshot(m_ws);
        shellSideEffects(m_ws);
        const QStringList after = snapshot(m_ws);
        // Killed while git holds the index's lock.
        killWhen(m_shadow, "index.lock", [&] {
            auto repo = ShadowRepo::open(m_shadow, m_ws);
            for (std::uint64_t step = 2;; ++step)
                (void)repo->snapshot(Kind::Step, step);
        });
        QCOMPARE(snapshot(m_ws), after);
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        auto next = repo->snapshot(Kind::Step, 100);
        QVERIFY2(next.ok(), next.ok() ? "" : next.error().message.c_str());
        QVERIFY(repo->list().ok());
        auto first = repo->beforeStep(1);
        QVERIFY(first.ok());
        QVERIFY(repo->rewind(*first).ok());
        QCOMPARE(snapshot(m_ws), before);
        QCOMPARE(treeHash(m_ws / ".git"), gitBefore);
    }

    void killedDuringRewind() {
        writeFile(m_ws / "keep", "k\n");
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        QVERIFY(repo->snapshot(Kind::Step, 1).ok());
        const QStringList before = snapshot(m_ws);
        for (int i = 0; i < 2000; ++i)
            writeFile(m_ws / "out" / std::to_string(i % 20) / std::to_string(i), std::to_string(i) + "\n");
        fs::remove(m_ws / "keep");
        const QStringList after = snapshot(m_ws);
        // Killed once the rewind has recorded the present and begun to change the workspace.
        killWhen(m_shadow, "rewind.json", [&] {
            auto again = ShadowRepo::open(m_shadow, m_ws);
            (void)again->rewind(*again->beforeStep(1));
        });
        auto reopened = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(reopened.ok());
        auto target = reopened->beforeStep(1);
        QVERIFY(target.ok());
        // Run again, it finishes; and its undo is the workspace as it was before the first attempt.
        auto finished = reopened->rewind(*target);
        QVERIFY2(finished.ok(), finished.ok() ? "" : finished.error().message.c_str());
        QCOMPARE(snapshot(m_ws), before);
        QVERIFY(!reopened->interruptedRewind());
        QVERIFY(reopened->rewind(finished->undo).ok());
        QCOMPARE(snapshot(m_ws), after);
    }

    void heldPathsNeitherRecordedNorTouched() {
        writeFile(m_ws / "a", "1\n");
        ShadowRepo::Options options;
        options.rules.heldPaths = {".envrc", ".vscode"};
        {
            auto repo = ShadowRepo::open(m_shadow, m_ws, options);
            QVERIFY(repo.ok());
        }
        // Opened later without them (as the CLI does), the repository keeps using them.
        auto repo = ShadowRepo::open(m_shadow, m_ws);
        QVERIFY(repo.ok());
        // The sandbox's placeholders while the agent runs.
        writeFile(m_ws / ".envrc", "");
        fs::create_directories(m_ws / ".vscode");
        auto first = repo->snapshot(Kind::Step, 1);
        QVERIFY(first.ok());
        QVERIFY(first->meta.emptyDirs.empty());
        fs::remove(m_ws / ".envrc");
        fs::remove(m_ws / ".vscode");
        writeFile(m_ws / "a", "2\n");
        auto end = repo->snapshot(Kind::End, 2);
        QVERIFY(end.ok());
        auto changes = repo->changes(*first, *end);
        QVERIFY(changes.ok());
        QCOMPARE(changes->size(), 1u);
        QVERIFY(repo->rewind(*first).ok());
        QVERIFY(!fs::exists(m_ws / ".envrc") && !fs::exists(m_ws / ".vscode"));
        QCOMPARE(readFile(m_ws / "a"), std::string("1\n"));
    }

    void prunedKeepsTheFirstAndTheLatest() {
        writeFile(m_ws / "a", "0\n");
        ShadowRepo::Options options;
        options.keepSteps = 3;
        auto repo = ShadowRepo::open(m_shadow, m_ws, options);
        QVERIFY(repo.ok());
        for (std::uint64_t step = 1; step <= 8; ++step) {
            writeFile(m_ws / "a", std::to_string(step) + "\n");
            QVERIFY(repo->snapshot(Kind::Step, step).ok());
        }
        QVERIFY(repo->prune().ok());
        auto all = repo->list();
        QVERIFY(all.ok());
        QStringList steps;
        for (const auto& snapshot : *all)
            steps << QString::number(snapshot.meta.step);
        QCOMPARE(steps, (QStringList{"1", "6", "7", "8"}));
        auto first = repo->beforeStep(1);
        QVERIFY(first.ok());
        QVERIFY(repo->rewind(*first).ok());
        QCOMPARE(readFile(m_ws / "a"), std::string("1\n"));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_ws, m_shadow;
};

QTEST_GUILESS_MAIN(ShadowRepoTest)
#include "tst_shadow_repo.moc"
