#pragma once
// The workspace the review and rewind tests start from (tst_shadow_repo, tst_control_rewind): a user's git
// repository with committed files, an executable, a link, a binary file and an ignore file, then an
// untracked file and an empty directory (git records neither of those two as it does the rest).

#include "tests/unit/WorkspaceTree.h"

namespace warren::test {

inline void makeUserRepository(const fs::path& ws) {
    writeFile(ws / "README.md", "# project\n");
    writeFile(ws / "src/main.c", "int main(void) { return 0; }\n");
    writeFile(ws / "src/util.c", "int util;\n");
    writeFile(ws / "tools/build.sh", "#!/bin/sh\nmake\n");
    setExecutable(ws / "tools/build.sh", true);
    writeFile(ws / "data/blob.bin", binaryBytes(70000, 7));
    writeFile(ws / ".gitignore", "*.log\n");
    fs::create_symlink("src/main.c", ws / "main-link");
    git(ws, {"init", "-q"});
    git(ws, {"add", "-A"});
    git(ws, {"commit", "-qm", "start"});
    writeFile(ws / "notes.txt", "untracked but not ignored\n");
    fs::create_directories(ws / "empty/deeper");
}

} // namespace warren::test
