#include "app/git/WorkspacePatch.h"

#include "app/git/GitDiffText.h"
#include "common/ChildProcess.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace warren::git {

namespace {

namespace fs = std::filesystem;

// A scratch directory holding "a" -> pristine and "b" -> workspace: git, run in it on "a/" and "b/" with no
// prefix of its own, writes a/FILE and b/FILE whatever the trees' real paths are. Removed when done (the
// links, not what they name).
class Scratch {
public:
    static Result<Scratch> create() {
        std::string pattern = (fs::temp_directory_path() / "warren-patch-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return makeError(ErrorCode::System,
                             std::string("cannot create a scratch directory for the patch: ") +
                                 std::strerror(errno));
        return Scratch(pattern);
    }
    Scratch(Scratch&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
    Scratch(const Scratch&) = delete;
    ~Scratch() {
        std::error_code ignored;
        if (!m_path.empty())
            fs::remove_all(m_path, ignored);
    }
    const fs::path& path() const { return m_path; }

private:
    explicit Scratch(fs::path path) : m_path(std::move(path)) {}
    fs::path m_path;
};

std::vector<std::string> gitEnvironment(const fs::path& scratch) {
    std::vector<std::string> env = {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                                    "HOME=" + scratch.string(),
                                    // no repository around the scratch directory lends its config
                                    "GIT_CEILING_DIRECTORIES=" + scratch.parent_path().string(), "LC_ALL=C"};
    if (const char* path = std::getenv("PATH"))
        env.push_back(std::string("PATH=") + path);
    return env;
}

} // namespace

Result<std::string> workspacePatch(const fs::path& pristine, const fs::path& workspace,
                                   const PatchOptions& options) {
    std::error_code error;
    for (const auto& tree : {pristine, workspace})
        if (!fs::is_directory(tree, error))
            return makeError(ErrorCode::NotFound, "cannot diff \"" + tree.string() + "\": not a directory");
    auto scratch = Scratch::create();
    if (!scratch)
        return scratch.error();
    fs::create_directory_symlink(fs::absolute(pristine), scratch->path() / "a", error);
    if (!error)
        fs::create_directory_symlink(fs::absolute(workspace), scratch->path() / "b", error);
    if (error)
        return makeError(ErrorCode::System,
                         "cannot prepare the patch's scratch directory: " + error.message());
    ChildRequest request;
    request.argv = {options.git,     "-C",           scratch->path().string(), "diff",         "--no-index",
                    "--binary",      "--full-index", "--no-prefix",            "--no-renames", "--no-ext-diff",
                    "--no-textconv", "--no-color",   "a/",                     "b/"};
    request.env = gitEnvironment(scratch->path());
    request.timeout = options.timeout;
    request.maxStdout = options.maxBytes;
    auto ran = runChild(request);
    if (!ran)
        return makeError(ran.error().code, ran.error().message + " to make the patch (is git installed?)");
    if (ran->end == ChildOutput::End::TimedOut)
        return makeError(ErrorCode::System, "git diff took longer than " + std::to_string(options.timeout.count() / 1000) +
                                                " s; the task's workspace may be too large to diff");
    if (ran->end == ChildOutput::End::StdoutTooLarge)
        return makeError(ErrorCode::InvalidArgument, "the task's patch is larger than the " +
                                                         std::to_string(options.maxBytes) + " bytes the server allows");
    // git diff's exit status: 0 the trees are the same, 1 they differ, anything else it failed.
    if (ran->status != 0 && ran->status != 1)
        return makeError(ErrorCode::System, "git diff failed (exit " + std::to_string(ran->status) + "): " + ran->err);
    return tidyGitDiff(ran->out);
}

} // namespace warren::git
