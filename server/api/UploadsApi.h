#pragma once
// POST /v1/uploads: the body is a tar of the workspace, streamed to a file as it arrives, then extracted
// once into the upload's tree by UploadExtractor (every path checked: no "..", absolute paths, devices or
// links out), on a DiskWork worker, never on the event loop. Each task's workspace is copied from that
// tree (WorkspaceCopy); the tar is not kept. A refused upload leaves nothing behind; an accepted one
// belongs to its caller alone.

#include "common/Result.h"
#include "server/accounts/AccountTypes.h"
#include "server/http/Router.h"
#include "common/tar/UploadExtractor.h"

#include <string>

namespace warren::server {

struct ServerParts;

void addUploadRoutes(http::Router& router, ServerParts& parts);

// Extracts the tar at tarPath into target (which must not exist): the upload's tree. The error is the
// extractor's: what was wrong, with which entry. Disk work: on a DiskWork worker.
Result<tar::UploadCounts> extractUpload(const std::string& tarPath, const std::string& target);

// Whose share of the DiskWork workers a request's work takes: its caller's.
std::string workOwner(const accounts::Account& caller);

} // namespace warren::server
