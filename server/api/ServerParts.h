#pragma once
// What warrend's endpoints share: the task store, the accounts, the task manager, the event streams, what is
// counted, the webhooks and where files go. Owned by Warrend; the endpoint files only borrow them, all on the
// server's one thread (DiskWork's workers touch none of them).

#include "app/store/Store.h" // StoreOpener
#include "server/accounts/AccountTypes.h"
#include "server/api/ServeOptions.h"

#include <string>

namespace warren::control {
class EngineMetrics;
class TaskManager;
} // namespace warren::control

namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

class DiskWork;
class EventStreams;
class Quotas;
class ReplicaRequests;
class TaskWebhooks;

// Under --data-dir:
//   uploads/<id>/upload.tar      the body as it came, until it is extracted
//   uploads/<id>/tree            the upload extracted once: checked, each task's workspace is copied from
//                                it, and the patch's "before"
//   workspaces/<task>            the task's workspace, mounted at /workspace
//   scripts/<task>.json          an inline script (scripted model)
//   tasks/, memories/            the control plane's (DataDir)
struct ServerPaths {
    std::string root;
    std::string uploadDir(const std::string& id) const { return root + "/uploads/" + id; }
    std::string uploadTar(const std::string& id) const { return uploadDir(id) + "/upload.tar"; }
    std::string uploadTree(const std::string& id) const { return uploadDir(id) + "/tree"; }
    std::string workspace(const std::string& task) const { return root + "/workspaces/" + task; }
    std::string script(const std::string& task) const { return root + "/scripts/" + task + ".json"; }
    std::string incoming() const { return root + "/incoming"; } // request bodies being received
};

struct ServerParts {
    control::Store& store;
    accounts::AccountStore& accounts;
    control::TaskManager& manager;
    EventStreams& streams;
    Quotas& quotas;
    DiskWork& work; // every request's disk and process work runs there, off the event loop
    control::EngineMetrics& metrics; // the engine's, which the endpoints count into too (quota refusals)
    TaskWebhooks& webhooks;          // the users' webhooks, told of each task's lifecycle
    ReplicaRequests& requests;       // what only the replica running a task can do, asked of it
    ServerPaths paths;
    ServeOptions options;
    // Another connection to the database, as this replica's writer, for a worker's own long write (a moved
    // task's history): opened on the worker, closed when done.
    control::StoreOpener openStore;
    std::string replica; // this replica's name (replicaName): its claims of Idempotency-Keys
};

} // namespace warren::server
