// What a task's workspace snapshots cost (app/snapshots), against what a user would do by hand, side by side
// in one run: a user's repository of 20,000 committed files (200 directories of 100), one file changed per
// step, 100 steps. Each step, ShadowRepo::snapshot on the workspace against `git add -A && git commit` in a
// copy of it (the user's own repository), alternating which goes first so drift hits both alike. Median and
// p90 per step, the first snapshot's time apart (it copies the user's index and borrows its objects), and the
// disk each used after 100 steps: the shadow repository against what the copy's .git grew by.
//   bench_snapshots [FILES] [STEPS]

#include "app/snapshots/ShadowRepo.h"
#include "bench/BenchStats.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_snapshots: %s\n", what.c_str());
    std::exit(1);
}

void shell(const std::string& command) {
    const std::string wrapped = "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null " + command;
    if (std::system(wrapped.c_str()) != 0)
        fail("failed: " + command);
}

std::uint64_t diskUsed(const fs::path& root) {
    std::uint64_t bytes = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0)
            bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
    }
    return bytes;
}

std::string fileText(int dir, int file, int version) {
    std::string text;
    for (int line = 0; line < 20; ++line)
        text += "dir " + std::to_string(dir) + " file " + std::to_string(file) + " line " +
                std::to_string(line) + " version " + std::to_string(version) + "\n";
    return text;
}

} // namespace

int main(int argc, char** argv) {
    const int files = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
    const int perDir = 100, dirs = (files + perDir - 1) / perDir;
    char pattern[] = "/tmp/warren-bench-snapshots-XXXXXX";
    if (!::mkdtemp(pattern))
        fail("cannot make a temporary directory");
    const fs::path root = pattern, ws = root / "ws", copy = root / "copy", shadow = root / "task/snapshots";
    for (int d = 0; d < dirs; ++d) {
        fs::create_directories(ws / ("dir" + std::to_string(d)));
        for (int f = 0; f < perDir && d * perDir + f < files; ++f)
            std::ofstream(ws / ("dir" + std::to_string(d)) / ("file" + std::to_string(f) + ".txt"))
                << fileText(d, f, 0);
    }
    const std::string ident = "-c user.name=bench -c user.email=bench@example.com";
    shell("cd " + ws.string() + " && git init -q && git " + ident + " add -A && git " + ident +
          " commit -q -m start");
    shell("cp -a " + ws.string() + " " + copy.string());
    const std::uint64_t copyGitBefore = diskUsed(copy / ".git");

    auto repo = warren::snapshots::ShadowRepo::open(shadow, ws);
    if (!repo)
        fail(repo.error().message);
    auto start = Clock::now();
    if (auto first = repo->snapshot(warren::snapshots::SnapshotMeta::Kind::Step, 1); !first)
        fail(first.error().message);
    const double firstMs = msSince(start);

    std::vector<double> snapshotMs, commitMs;
    for (int step = 1; step <= steps; ++step) {
        const int d = step % dirs, f = (step * 7) % perDir;
        const fs::path relative = fs::path("dir" + std::to_string(d)) / ("file" + std::to_string(f) + ".txt");
        std::ofstream(ws / relative) << fileText(d, f, step);
        std::ofstream(copy / relative) << fileText(d, f, step);
        const auto snap = [&] {
            const auto began = Clock::now();
            if (auto taken = repo->snapshot(warren::snapshots::SnapshotMeta::Kind::Step,
                                            static_cast<std::uint64_t>(step) + 1);
                !taken)
                fail(taken.error().message);
            snapshotMs.push_back(msSince(began));
        };
        const auto commit = [&] {
            const auto began = Clock::now();
            shell("cd " + copy.string() + " && git " + ident + " add -A && git " + ident + " commit -q -m s" +
                  std::to_string(step));
            commitMs.push_back(msSince(began));
        };
        if (step % 2) {
            snap();
            commit();
        } else {
            commit();
            snap();
        }
    }
    const double shadowMiB = static_cast<double>(diskUsed(shadow)) / (1024.0 * 1024.0);
    const double copyGrewMiB =
        static_cast<double>(diskUsed(copy / ".git") - copyGitBefore) / (1024.0 * 1024.0);

    std::printf("workspace snapshots: a git repository of %d files, one file changed per step, %d steps\n",
                files, steps);
    std::printf("  first snapshot (index copied, objects borrowed)   %9.1f ms\n", firstMs);
    std::printf("  per step  shadow snapshot          median %7.1f ms  p90 %7.1f ms\n",
                percentile(snapshotMs, 0.5), percentile(snapshotMs, 0.9));
    std::printf("  per step  git add -A && git commit median %7.1f ms  p90 %7.1f ms\n",
                percentile(commitMs, 0.5), percentile(commitMs, 0.9));
    std::printf("  disk after %d steps: shadow repository %.2f MiB, the copy's .git grew %.2f MiB\n", steps,
                shadowMiB, copyGrewMiB);
    std::error_code ignored;
    fs::remove_all(root, ignored);
    return 0;
}
