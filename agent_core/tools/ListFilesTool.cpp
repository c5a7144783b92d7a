#include "agent_core/tools/ListFilesTool.h"

#include "agent_core/tools/ToolArguments.h"
#include "agent_core/tools/ToolStop.h"
#include "agent_core/tools/ToolText.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WorkspaceSnapshot.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace warren::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Listing {
    fs::path directory;
    std::string shown;  // "." for the workspace root
    std::string prefix; // of the entries' paths: "" or "shown/"
    std::size_t depth = ListFilesTool::kDefaultDepth;
    bool depthLimited = false; // asked for more than kMaxDepth
};

Result<Listing> readListing(const json& arguments, const ToolEnv& env) {
    const std::string tool(ListFilesTool::kName);
    auto reader = ToolArguments::read(ListFilesTool::kName, arguments, {"path", "depth"});
    if (!reader)
        return reader.error();
    auto path = reader->optionalString("path");
    if (!path)
        return path.error();
    auto depth = reader->optionalUint("depth");
    if (!depth)
        return depth.error();
    Listing listing;
    if (*depth) {
        if (**depth == 0)
            return reader->error("depth must be at least 1");
        listing.depthLimited = **depth > ListFilesTool::kMaxDepth;
        listing.depth = static_cast<std::size_t>(std::min<std::uint64_t>(**depth, ListFilesTool::kMaxDepth));
    }
    auto resolved = resolveInWorkspace(env.workspace, path->value_or("."));
    if (!resolved)
        return reader->error(resolved.error().message);
    listing.directory = *resolved;
    listing.shown = relativeToWorkspace(env.workspace, *resolved);
    listing.prefix = listing.shown == "." ? "" : listing.shown + "/";
    struct stat status {};
    if (::lstat(resolved->c_str(), &status) != 0)
        return errno == ENOENT ? reader->error("no such directory: " + listing.shown)
                               : reader->error(listing.shown + ": " + std::strerror(errno));
    if (!S_ISDIR(status.st_mode))
        return reader->error(listing.shown + " is not a directory; read_file shows a file's content");
    return listing;
}

std::string describe(const WalkEntry& entry) {
    std::string line = validUtf8(entry.path);
    if (S_ISDIR(entry.status.st_mode)) {
        line += "/";
    } else if (S_ISLNK(entry.status.st_mode)) {
        std::error_code ec;
        const fs::path target = fs::read_symlink(entry.absolute, ec);
        line += " -> " + (ec ? std::string("?") : validUtf8(target.native()));
    }
    return line + "\n";
}

} // namespace

protocol::ToolSpec ListFilesTool::spec() {
    return {
        std::string(kName),
        "List the files and directories under a workspace directory, sorted, directories ending in \"/\".",
        json{{"type", "object"},
             {"properties",
              {{"path",
                {{"type", "string"},
                 {"description", "Directory to list, relative to /workspace (default: all of it)"}}},
               {"depth",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"maximum", kMaxDepth},
                 {"description",
                  "How many levels deep to list (default " + std::to_string(kDefaultDepth) + ")"}}}}},
             {"additionalProperties", false}}};
}

ToolOutcome ListFilesTool::run(const json& arguments, const ToolEnv& env) {
    auto listing = readListing(arguments, env);
    if (!listing)
        return failure(listing.error().message);

    CappedOutput output(env.outputLimitBytes);
    std::size_t entries = 0;
    bool entryCapReached = false;
    StopReason stop = StopReason::None;
    walkTree(listing->directory, listing->prefix, listing->depth, [&](const WalkEntry& entry) {
        if ((stop = stopReason(env)) != StopReason::None)
            return false;
        if (entries == kMaxEntries) {
            entryCapReached = true;
            return false;
        }
        ++entries;
        return output.append(describe(entry));
    });
    if (stop != StopReason::None)
        return stoppedOutcome(kName, stop, output.take());

    ToolOutcome outcome;
    const bool full = output.full();
    outcome.output = output.take();
    if (entries == 0)
        outcome.output = "(" + listing->shown + " is empty)\n";
    if (full) {
        outcome.truncated = true;
        outcome.output += "\n[output limit of " + std::to_string(env.outputLimitBytes) +
                          " bytes reached; list a subdirectory or use a smaller depth]\n";
    } else if (entryCapReached) {
        outcome.truncated = true;
        outcome.output += "[listing stopped at " + std::to_string(kMaxEntries) +
                          " entries; list a subdirectory or use a smaller depth]\n";
    }
    if (listing->depthLimited)
        outcome.output += "[depth limited to " + std::to_string(kMaxDepth) + "]\n";
    return outcome;
}

std::optional<std::string> ListFilesTool::contentKey(const json& arguments, const ToolEnv& env) const {
    auto listing = readListing(arguments, env);
    if (!listing)
        return std::nullopt;
    IdentityDigest digest;
    digest.add(kName);
    digest.add(listing->directory.native());
    digest.add(std::uint64_t{env.outputLimitBytes});
    bool trusted = true;
    std::size_t entries = 0;
    // One entry past the cap: whether there is more decides the note.
    walkTree(listing->directory, listing->prefix, listing->depth, [&](const WalkEntry& entry) {
        trusted = !changedWithinCurrentTick(entry.status);
        digest.add(entry.path);
        digest.add(identityOf(entry.status));
        return trusted && ++entries <= kMaxEntries;
    });
    if (!trusted)
        return std::nullopt;
    return digest.hex();
}

} // namespace warren::agent
