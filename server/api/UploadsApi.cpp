#include "server/api/UploadsApi.h"

#include "common/RemoveTree.h"
#include "common/TreeSize.h"
#include "common/tar/UploadExtractor.h"
#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/DiskUse.h"
#include "server/api/HttpErrors.h"
#include "server/api/Quotas.h"
#include "server/api/ServerIds.h"
#include "server/api/ServerParts.h"
#include "server/work/DiskWork.h"

#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace warren::server {

namespace fs = std::filesystem;

namespace {

// The body is moved into the upload's directory at once (a rename: the exchange's file would otherwise
// go with a client that leaves), then extracted and checked on a worker while the event loop serves
// everyone else; recorded as the caller's back here. A client that leaves meanwhile loses nothing: the
// upload is kept and recorded all the same.
void receive(ServerParts& parts, const accounts::Account& caller, const http::HttpRequest& request,
             http::HttpReply reply) {
    const std::string id = newUploadId();
    const std::string dir = parts.paths.uploadDir(id);
    std::error_code error;
    fs::create_directories(dir, error);
    if (!error)
        fs::rename(request.bodyFile.toStdString(), parts.paths.uploadTar(id), error);
    if (error) {
        fs::remove(dir, error); // empty: nothing was moved into it
        return reply.send(
            errorResponse(makeError(ErrorCode::System, "cannot keep the upload: " + error.message() +
                                                           "; is the server's disk full?")));
    }
    auto disk = diskBudget(parts, caller);
    if (!disk) {
        parts.work.runDetached(workOwner(caller), [dir] { (void)files::removeTree(dir); });
        return reply.send(errorResponse(disk.error()));
    }
    const std::string owner = workOwner(caller);
    using Extracted = Result<tar::UploadCounts>;
    auto overDisk = std::make_shared<std::optional<accounts::OverQuota>>();
    parts.work.run<Extracted>(
        owner,
        [tar = parts.paths.uploadTar(id), tree = parts.paths.uploadTree(id), dir, disk = std::move(*disk),
         overDisk]() -> Extracted {
            // The tree takes about what the tar does: that is what the upload adds to its owner's disk.
            if (disk) {
                auto adding = files::treeBytes(tar);
                auto over = adding ? checkDisk(*disk, *adding)
                                   : Result<std::optional<accounts::OverQuota>>(adding.error());
                if (!over || *over) {
                    (void)files::removeTree(dir);
                    if (!over)
                        return over.error();
                    *overDisk = *over;
                    return makeError(ErrorCode::InvalidArgument, (*over)->message());
                }
            }
            auto counts = extractUpload(tar, tree);
            // Extracted once, here: each task's workspace is copied from the tree, so the tar has served.
            std::error_code ignored;
            if (counts)
                fs::remove(tar, ignored);
            else
                (void)files::removeTree(dir);
            return counts;
        },
        [&parts, caller, id, dir, owner, reply, overDisk](Extracted counts) {
            if (*overDisk)
                return reply.send(overQuotaResponse(parts.metrics, **overDisk));
            Status recorded = Ok{};
            if (counts)
                recorded = parts.accounts.recordUpload(caller.userId, id, dir);
            if (!counts || !recorded) {
                if (counts) // extracted but not recorded: nobody can use it
                    parts.work.runDetached(owner, [dir] { (void)files::removeTree(dir); });
                const Error& why = counts ? recorded.error() : counts.error();
                if (why.code == ErrorCode::InvalidArgument)
                    return reply.send(
                        http::HttpResponse::error(400, "invalid_upload", QString::fromStdString(why.message)));
                return reply.send(errorResponse(why));
            }
            reply.send(jsonResponse(201, {{"id", id}, {"files", counts->files}, {"bytes", counts->bytes}}));
        });
}

} // namespace

Result<tar::UploadCounts> extractUpload(const std::string& tarPath, const std::string& target) {
    const int fd = ::open(tarPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return makeError(ErrorCode::System,
                         "cannot read the upload " + tarPath + ": " + std::strerror(errno));
    tar::FdByteSource source(fd);
    auto counts = tar::UploadExtractor(tar::UploadLimits{}).extract(source, target);
    ::close(fd);
    return counts;
}

std::string workOwner(const accounts::Account& caller) {
    return "user-" + std::to_string(caller.userId);
}

void addUploadRoutes(http::Router& router, ServerParts& parts) {
    http::RouteOptions options;
    options.maxBodyBytes = static_cast<qint64>(parts.options.maxUploadBytes);
    options.bodyToFile = true;
    router.add(
        "POST", "/v1/uploads",
        authenticated(parts.accounts,
                      [&parts](const accounts::Account& caller, const http::HttpRequest& request,
                               http::HttpReply reply) { receive(parts, caller, request, std::move(reply)); }),
        options);
}

} // namespace warren::server
