#include "app/remote/RemotePlaneChooser.h"

#include "app/control/ControlPlane.h"
#include "app/control/LocalControlPlane.h"
#include "app/remote/PlaneChoice.h"
#include "app/remote/RemoteClient.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/remote/ServerProbe.h"
#include "app/remote/TaskMoves.h"
#include "app/secrets/SecretStore.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <utility>

namespace warren::remote {

using control::PlaneChoice;
using control::PlaneKind;
using control::TaskRecord;

RemotePlaneChooser::RemotePlaneChooser(std::string dataDir, bool useKeychain)
    : m_dataDir(std::move(dataDir)), m_useKeychain(useKeychain) {}

RemotePlaneChooser::~RemotePlaneChooser() = default;

control::SecretStore& RemotePlaneChooser::secrets() {
    if (!m_secrets)
        m_secrets =
            m_useKeychain ? control::SecretStore::open(m_dataDir) : control::SecretStore::openFile(m_dataDir);
    return *m_secrets;
}

Result<PlaneChoice> RemotePlaneChooser::current() {
    return loadPlaneChoice(m_dataDir);
}

namespace {

Result<std::pair<QUrl, std::string>> serverAndKey(const std::string& url, const std::string& key,
                                                  control::SecretStore& secrets) {
    auto base = parseServerUrl(QString::fromStdString(url));
    if (!base)
        return base.error();
    if (!key.empty())
        return std::pair(*base, key);
    auto stored = storedServerKey(secrets);
    if (!stored)
        return stored.error();
    if (stored->empty())
        return makeError(ErrorCode::InvalidArgument,
                         "no API key for the server: paste the key `warrend admin add-user` printed");
    return std::pair(*base, *stored);
}

} // namespace

void RemotePlaneChooser::test(const std::string& url, const std::string& key, QObject* context,
                              control::Done<control::ServerAccount> done) {
    auto asked = serverAndKey(url, key, secrets());
    if (!asked) {
        QTimer::singleShot(0, context, [error = asked.error(), done] { done(error); });
        return;
    }
    // The client and its deadline are the context's: deleting it aborts the probe. Whichever of the probe's
    // answer and the deadline comes first answers; the client goes after, out of its own reply's handler.
    auto* client = new RemoteClient(asked->first, asked->second, context);
    auto answer = std::make_shared<control::Done<control::ServerAccount>>(std::move(done));
    auto* deadline = new QTimer(client);
    deadline->setSingleShot(true);
    const std::string server = client->server().toStdString();
    QObject::connect(deadline, &QTimer::timeout, client, [client, answer, server] {
        client->deleteLater();
        if (auto reply = std::exchange(*answer, nullptr))
            reply(
                makeError(ErrorCode::Unavailable,
                          "no answer from " + server + " within " +
                              std::to_string(std::chrono::seconds(control::kConnectionTestTimeout).count()) +
                              " s: check that warrend runs there and that the URL (its port too) is right"));
    });
    probeServer(*client, client, [client, answer](Result<control::ServerAccount> account) {
        client->deleteLater();
        if (auto reply = std::exchange(*answer, nullptr))
            reply(std::move(account));
    });
    deadline->start(control::kConnectionTestTimeout);
}

Status RemotePlaneChooser::save(const PlaneChoice& choice, const std::string& key) {
    PlaneChoice saved = choice;
    if (auto base = parseServerUrl(QString::fromStdString(saved.url)))
        saved.url = base->toString().toStdString();
    else if (saved.kind == PlaneKind::Remote)
        return base.error();
    else
        saved.url.clear(); // a half-typed URL does not stop a switch to Local
    if (!key.empty()) {
        if (auto stored = secrets().write(kRemoteKeyName, key); !stored)
            return stored.error();
    } else if (saved.kind == PlaneKind::Remote) {
        auto stored = hasKey();
        if (!stored)
            return stored.error();
        if (!*stored)
            return makeError(ErrorCode::InvalidArgument,
                             "enter the server's API key (the one `warrend admin add-user` printed)");
    }
    return savePlaneChoice(m_dataDir, saved);
}

Result<bool> RemotePlaneChooser::hasKey() {
    auto stored = storedServerKey(secrets());
    if (!stored)
        return stored.error();
    return !stored->empty();
}

std::string RemotePlaneChooser::keyStorageWarning() {
    return secrets().warning();
}

std::optional<control::MoveDestination> RemotePlaneChooser::moveDestination(control::ControlPlane& current) {
    if (qobject_cast<RemoteControlPlane*>(&current))
        return control::MoveDestination{PlaneKind::Local, {}};
    if (!qobject_cast<control::LocalControlPlane*>(&current))
        return std::nullopt;
    auto choice = loadPlaneChoice(m_dataDir);
    if (!choice || choice->url.empty())
        return std::nullopt;
    return control::MoveDestination{PlaneKind::Remote, choice->url};
}

namespace {

// The answer later, never inside the call (TaskMoves answers a refusal in the call), and only while context
// lives.
control::Done<TaskRecord> answerLater(QObject* context, control::Done<TaskRecord> done) {
    return [context = QPointer<QObject>(context), done = std::move(done)](Result<TaskRecord> moved) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [context, done, moved = std::move(moved)] {
                if (context)
                    done(moved);
            },
            Qt::QueuedConnection);
    };
}

} // namespace

// The other side's plane is opened for the move and made the window's plane's child: should the window's
// plane go first (Settings switched), the other goes with it and no step of the move reaches a plane that is
// gone. Otherwise it goes once the move answered, out of the handler that answered.
void RemotePlaneChooser::moveTask(control::ControlPlane& current, const std::string& taskId, QObject* context,
                                  control::Done<TaskRecord> done) {
    auto answer = answerLater(context, std::move(done));
    if (auto* server = qobject_cast<RemoteControlPlane*>(&current)) {
        control::LocalOptions options;
        options.dataDir = m_dataDir;
        options.useKeychain = m_useKeychain;
        auto opened = control::LocalControlPlane::open(std::move(options));
        if (!opened)
            return answer(makeError(opened.error().code, "task " + taskId +
                                                             " stays there: this computer's tasks cannot be "
                                                             "opened: " +
                                                             opened.error().message));
        control::LocalControlPlane* local = opened->release();
        local->setParent(server);
        // Its home here: the workspace it was submitted from (an empty workspace says so).
        return moveHome(*local, *server, taskId, {}, [local, answer](Result<TaskRecord> moved) {
            local->deleteLater();
            answer(std::move(moved));
        });
    }
    auto* local = qobject_cast<control::LocalControlPlane*>(&current);
    auto destination = moveDestination(current);
    if (!local || !destination)
        return answer(makeError(
            ErrorCode::InvalidArgument,
            "task " + taskId + " stays here: no server to move it to; name one in Settings → Control plane"));
    RemoteOptions options;
    options.url = QString::fromStdString(destination->url);
    options.dataDir = m_dataDir;
    options.useKeychain = m_useKeychain;
    RemoteControlPlane::open(
        std::move(options), [here = QPointer<control::LocalControlPlane>(local), taskId,
                             answer](Result<std::unique_ptr<RemoteControlPlane>> opened) {
            if (!opened)
                return answer(makeError(
                    opened.error().code,
                    "task " + taskId + " stays here: the server cannot be used: " + opened.error().message));
            RemoteControlPlane* server = opened->release();
            if (!here) { // the window's plane went while the server was asked: nothing was moved
                server->deleteLater();
                return;
            }
            server->setParent(here.data());
            moveToServer(*here, *server, taskId, [server, answer](Result<TaskRecord> moved) {
                server->deleteLater();
                answer(std::move(moved));
            });
        });
}

} // namespace warren::remote
