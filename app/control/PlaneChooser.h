#pragma once
// Which control plane the desktop drives (DESIGN §9): this machine's, or a warrend's. The window's Settings
// show and change the choice through this interface and never name RemoteControlPlane; the implementation
// (app/remote/RemotePlaneChooser) keeps the choice in the data directory and the server's API key in the
// keychain, and the opener (app/remote/PlaneOpener) opens what it says.

#include "app/control/Done.h"
#include "common/Result.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
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
};

} // namespace warren::control
