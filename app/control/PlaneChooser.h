#pragma once
// Which control plane the desktop drives (DESIGN §9): this machine's, or a warrend's. The window's Settings
// show and change the choice through this interface and never name RemoteControlPlane; the implementation
// (app/remote/RemotePlaneChooser) keeps the choice in the data directory and the server's API key in the
// keychain, and the opener (app/remote/PlaneOpener) opens what it says. Task > Move goes through it too: the
// window moves a task to the other side (`warren move`) without naming either plane.

#include "app/control/Done.h"
#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

class QObject;

namespace warren::control {

class ControlPlane;

enum class PlaneKind { Local, Remote };

struct PlaneChoice {
    PlaneKind kind = PlaneKind::Local;
    std::string
        url; // the warrend's http(s)://HOST:PORT; kept while Local, so switching back needs no retyping
    friend bool operator==(const PlaneChoice&, const PlaneChoice&) = default;
};

// Who a warrend says it is and who the key makes us (GET /v1/server, GET /v1/me), for Test connection.
struct ServerAccount {
    std::string server; // the URL asked
    std::string version, sandbox;
    std::string user, tenant;
    nlohmann::json quotas; // {"user": {limit: n|null}, "tenant": {...}} (docs/SERVER.md)
    std::uint64_t activeTasks = 0;
    std::uint64_t tokensThisMonth = 0;
};

// A control plane as an opener returns it, with what it is and what the window should say when it opens.
struct OpenedPlane {
    std::unique_ptr<ControlPlane> plane;
    std::string notice; // e.g. tasks recovered, or why the server was not reached; may be empty
    PlaneKind kind = PlaneKind::Local;
    std::string url; // the server, when Remote
};

// Where a task of the window's plane can move (`warren move`): a server's task to this computer, this
// computer's to the warrend Settings name.
struct MoveDestination {
    PlaneKind kind = PlaneKind::Remote; // the side it goes to
    std::string url;                    // that warrend's, when Remote
};

class PlaneChooser {
public:
    virtual ~PlaneChooser() = default;

    // The saved choice; Local when none was saved.
    virtual Result<PlaneChoice> current() = 0;
    // Asks the server at url with key (empty: the stored one) who it is and who the key makes us. The
    // errors tell apart a URL that does not read, a server that does not answer, something that is not a
    // warrend, and a refused key; a server that says nothing for kConnectionTestTimeout is reported then.
    // done runs later, on this thread, unless context dies first: deleting context abandons the test at
    // once (Cancel), its requests aborted.
    virtual void test(const std::string& url, const std::string& key, QObject* context,
                      Done<ServerAccount> done) = 0;
    // Saves the choice; a non-empty key is stored first (keychain, as kRemoteKeyName). Remote needs a URL
    // that reads and a key (given now, or stored before).
    virtual Status save(const PlaneChoice& choice, const std::string& key) = 0;
    // Whether a key for the server is stored (or WARREN_REMOTE_KEY gives one).
    virtual Result<bool> hasKey() = 0;
    // Empty when the key is in the keychain; otherwise what the user should know (a 0600 file).
    virtual std::string keyStorageWarning() = 0;

    // Where current's tasks can move: this computer for a server's plane; for this computer's, the server
    // Settings name (its URL is kept while Local is chosen). None when no server is named.
    virtual std::optional<MoveDestination> moveDestination(ControlPlane& current) = 0;
    // Moves current's paused, interrupted, waiting or sleeping task to moveDestination(current)
    // (TaskMoves.h): the other side's plane is opened for the move and closed after it. done: the task as it
    // is there (a server's id when it went to one); refused or failed, the task stays where it was and the
    // error says why. done runs later, on this thread, unless context dies first; nothing waits meanwhile.
    // current must outlive the call, or its going ends the move where it is (run again, it finishes:
    // TaskMove.h).
    virtual void moveTask(ControlPlane& current, const std::string& taskId, QObject* context,
                          Done<TaskRecord> done) = 0;
};

} // namespace warren::control
