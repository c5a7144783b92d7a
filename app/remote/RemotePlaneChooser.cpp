#include "app/remote/RemotePlaneChooser.h"

#include "app/control/ControlPlane.h"
#include "app/remote/PlaneChoice.h"
#include "app/remote/RemoteClient.h"
#include "app/remote/ServerProbe.h"
#include "app/secrets/SecretStore.h"

#include <QCoreApplication>
#include <QTimer>
#include <cstdlib>
#include <memory>
#include <utility>

namespace warren::remote {

using control::PlaneChoice;
using control::PlaneKind;

namespace {

} // namespace

Result<std::string> storedServerKey(control::SecretStore& secrets) {
    if (const char* fromEnvironment = std::getenv("WARREN_REMOTE_KEY"); fromEnvironment && *fromEnvironment)
        return std::string(fromEnvironment);
    auto stored = secrets.read(kRemoteKeyName);
    if (!stored)
        return stored.error();
    return stored->value_or(std::string());
}

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

} // namespace warren::remote
