#include "server/api/UploadsApi.h"

#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/ServerIds.h"
#include "server/api/ServerParts.h"
#include "common/tar/UploadExtractor.h"

#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace warren::server {

namespace fs = std::filesystem;

namespace {

void receive(ServerParts& parts, const accounts::Account& caller, const http::HttpRequest& request,
             http::HttpReply reply) {
    const std::string id = newUploadId();
    const std::string dir = parts.paths.uploadDir(id);
    std::error_code error;
    fs::create_directories(dir, error);
    if (!error)
        fs::rename(request.bodyFile.toStdString(), parts.paths.uploadTar(id), error);
    if (error) {
        fs::remove_all(dir, error);
        return reply.send(
            errorResponse(makeError(ErrorCode::System, "cannot keep the upload: " + error.message() +
                                                           "; is the server's disk full?")));
    }
    auto counts = extractUpload(parts.paths.uploadTar(id), parts.paths.uploadTree(id));
    Status recorded = Ok{};
    if (counts)
        recorded = parts.accounts.recordUpload(caller.userId, id, dir);
    if (!counts || !recorded) {
        fs::remove_all(dir, error);
        const Error& why = counts ? recorded.error() : counts.error();
        if (why.code == ErrorCode::InvalidArgument)
            return reply.send(
                http::HttpResponse::error(400, "invalid_upload", QString::fromStdString(why.message)));
        return reply.send(errorResponse(why));
    }
    reply.send(jsonResponse(201, {{"id", id}, {"files", counts->files}, {"bytes", counts->bytes}}));
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
