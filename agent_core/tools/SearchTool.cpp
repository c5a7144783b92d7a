// GCC 12 at -O2 with -fsanitize=address warns that libstdc++'s <regex> compiler moves a std::function it
// has not initialised (a false positive inside the library's own _StateT). The pragma must come before
// the first include, since the warning is located in <bits/std_function.h>.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "agent_core/tools/SearchTool.h"

#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/ToolStop.h"
#include "agent_core/tools/ToolText.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WorkspaceSnapshot.h"

#include <cerrno>
#include <cstring>
#include <fnmatch.h>
#include <regex>

namespace warren::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Deep enough for any real tree; bounds the recursion of the walk.
constexpr std::size_t kWalkDepth = 256;

struct Query {
    std::string pattern;
    std::optional<std::string> glob;
    fs::path root; // a directory to walk, or the one file to search
    std::string shown;
    bool singleFile = false;
};

Result<Query> readQuery(const json& arguments, const ToolEnv& env) {
    auto reader = ToolArguments::read(SearchTool::kName, arguments, {"pattern", "path", "glob"});
    if (!reader)
        return reader.error();
    Query query;
    auto pattern = reader->string("pattern");
    auto path = reader->optionalString("path");
    auto glob = reader->optionalString("glob");
    for (const Error* error : {pattern ? nullptr : &pattern.error(), path ? nullptr : &path.error(),
                               glob ? nullptr : &glob.error()})
        if (error)
            return *error;
    query.pattern = *pattern;
    query.glob = *glob;
    if (query.pattern.empty())
        return reader->error("pattern is empty");
    if (query.glob && query.glob->find('/') != std::string::npos)
        return reader->error("glob matches file names only (e.g. \"*.cpp\"); use path to choose a directory");
    auto resolved = resolveInWorkspace(env.workspace, path->value_or("."));
    if (!resolved)
        return reader->error(resolved.error().message);
    query.root = *resolved;
    query.shown = relativeToWorkspace(env.workspace, *resolved);
    struct stat status {};
    if (::lstat(resolved->c_str(), &status) != 0)
        return errno == ENOENT ? reader->error("no such file or directory: " + query.shown)
                               : reader->error(query.shown + ": " + std::strerror(errno));
    query.singleFile = !S_ISDIR(status.st_mode);
    return query;
}

bool globMatches(const Query& query, const fs::path& file) {
    return !query.glob || ::fnmatch(query.glob->c_str(), file.filename().c_str(), 0) == 0;
}

// Visits the regular files the query covers (with their workspace paths), and every entry walked.
void forEachFile(const Query& query, const std::function<bool(const WalkEntry&, bool isCandidate)>& visit) {
    if (query.singleFile) {
        WalkEntry entry;
        entry.path = query.shown;
        entry.absolute = query.root;
        if (::lstat(query.root.c_str(), &entry.status) == 0)
            visit(entry, true);
        return;
    }
    const std::string prefix = query.shown == "." ? "" : query.shown + "/";
    walkTree(query.root, prefix, kWalkDepth, [&](const WalkEntry& entry) {
        return visit(entry, S_ISREG(entry.status.st_mode) && globMatches(query, entry.absolute));
    });
}

struct Counts {
    std::size_t matches = 0;
    std::size_t largeFiles = 0;
    std::size_t longLines = 0;
    bool matchCapReached = false;
};

} // namespace

protocol::ToolSpec SearchTool::spec() {
    return {
        std::string(kName),
        "Search the workspace's text files for lines matching a regular expression (ECMAScript syntax); "
        "prints file:line: text.",
        json{
            {"type", "object"},
            {"properties",
             {{"pattern", {{"type", "string"}, {"description", "Regular expression, e.g. \"TODO|FIXME\""}}},
              {"path",
               {{"type", "string"},
                {"description", "Directory or file to search, relative to /workspace (default: all of it)"}}},
              {"glob",
               {{"type", "string"}, {"description", "Only files whose name matches, e.g. \"*.cpp\""}}}}},
            {"required", {"pattern"}},
            {"additionalProperties", false}}};
}

ToolOutcome SearchTool::run(const json& arguments, const ToolEnv& env) {
    const std::string tool(kName);
    auto query = readQuery(arguments, env);
    if (!query)
        return failure(query.error().message);
    std::regex regex;
    try {
        regex = std::regex(query->pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        return failure(tool + ": invalid regex \"" + query->pattern + "\": " + e.what());
    }

    CappedOutput output(env.outputLimitBytes);
    Counts counts;
    StopReason stop = StopReason::None;
    std::optional<std::string> error;
    forEachFile(*query, [&](const WalkEntry& entry, bool candidate) {
        if ((stop = stopReason(env)) != StopReason::None)
            return false;
        if (!candidate)
            return true;
        if (entry.status.st_size > static_cast<off_t>(kMaxFileBytes)) {
            ++counts.largeFiles;
            return true;
        }
        auto file = readTextFile(entry.absolute, entry.path, kMaxFileBytes);
        if (!file) {
            if (query->singleFile)
                error = file.error().message;
            return true; // binary, or gone since the walk saw it
        }
        std::string_view text = file->content;
        for (std::size_t line = 1; !text.empty(); ++line) {
            const std::size_t end = std::min(text.find('\n'), text.size());
            std::string_view content = text.substr(0, end);
            text.remove_prefix(std::min(end + 1, text.size()));
            if (!content.empty() && content.back() == '\r')
                content.remove_suffix(1);
            const std::string_view matched = content.substr(0, kMatchedLineBytes);
            if (matched.size() < content.size())
                ++counts.longLines;
            try {
                if (!std::regex_search(matched.begin(), matched.end(), regex))
                    continue;
            } catch (const std::regex_error& e) {
                error = "the pattern is too complex to match line " + std::to_string(line) + " of " +
                        entry.path + ": " + e.what();
                return false;
            }
            if (counts.matches == kMaxMatches) {
                counts.matchCapReached = true;
                return false;
            }
            ++counts.matches;
            if (!output.append(entry.path + ":" + std::to_string(line) + ": " +
                               validUtf8(shortenLine(content, kShownLineBytes)) + "\n"))
                return false;
        }
        return true;
    });
    if (error)
        return failure(tool + ": " + *error);
    if (stop != StopReason::None)
        return stoppedOutcome(kName, stop, output.take());

    ToolOutcome outcome;
    const bool full = output.full();
    outcome.output = output.take();
    if (counts.matches == 0)
        outcome.output = "no matches for /" + query->pattern + "/ in " + query->shown +
                         (query->glob ? " (files named " + *query->glob + ")" : "") + "\n";
    if (full) {
        outcome.truncated = true;
        outcome.output += "\n[output limit of " + std::to_string(env.outputLimitBytes) +
                          " bytes reached; narrow the pattern, path or glob]\n";
    } else if (counts.matchCapReached) {
        outcome.truncated = true;
        outcome.output +=
            "[stopped at " + std::to_string(kMaxMatches) + " matches; narrow the pattern, path or glob]\n";
    }
    if (counts.largeFiles > 0)
        outcome.output += "[" + std::to_string(counts.largeFiles) + " file(s) over " +
                          std::to_string(kMaxFileBytes / (1024 * 1024)) + " MiB not searched]\n";
    if (counts.longLines > 0)
        outcome.output += "[" + std::to_string(counts.longLines) + " line(s) longer than " +
                          std::to_string(kMatchedLineBytes) + " bytes searched in their first " +
                          std::to_string(kMatchedLineBytes) + " bytes only]\n";
    return outcome;
}

std::optional<std::string> SearchTool::contentKey(const json& arguments, const ToolEnv& env) const {
    auto query = readQuery(arguments, env);
    if (!query)
        return std::nullopt;
    IdentityDigest digest;
    digest.add(kName);
    digest.add(query->root.native());
    digest.add(std::uint64_t{env.outputLimitBytes});
    bool trusted = true;
    forEachFile(*query, [&](const WalkEntry& entry, bool candidate) {
        trusted = !changedWithinCurrentTick(entry.status);
        digest.add(entry.path);
        digest.add(candidate ? identityOf(entry.status) : FileIdentity{});
        return trusted;
    });
    if (!trusted)
        return std::nullopt;
    return digest.hex();
}

} // namespace warren::agent
