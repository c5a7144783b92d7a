#include "app/secrets/KeychainSecretStore.h"

#include <QEventLoop>
#include <QRandomGenerator>
#include <QTimer>
#include <qt6keychain/keychain.h>

namespace warren::control {

namespace {

constexpr const char* kProbeName = "warren-keychain-probe";

// Starts the job and waits for it, at most KeychainSecretStore::kJobTimeout. False on timeout: the job is
// then left to delete itself should the keychain ever answer, since it may still be running.
bool runToCompletion(QKeychain::Job* job) {
    QEventLoop loop;
    bool finished = false;
    QObject::connect(job, &QKeychain::Job::finished, &loop, [&] {
        finished = true;
        loop.quit();
    });
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    timer.start(KeychainSecretStore::kJobTimeout);
    job->start();
    if (!finished)
        loop.exec();
    if (!finished) {
        QObject::disconnect(job, nullptr, &loop, nullptr);
        job->setAutoDelete(true);
    }
    return finished;
}

template <typename JobType> JobType* newJob(const std::string& service, const std::string& name) {
    auto* job = new JobType(QString::fromStdString(service));
    job->setAutoDelete(false);
    job->setInsecureFallback(false); // never the plain-text QSettings store qtkeychain could fall back to
    job->setKey(QString::fromStdString(name));
    return job;
}

Error keychainError(const std::string& what, const QKeychain::Job& job) {
    return makeError(ErrorCode::System,
                     what + ": " + job.errorString().toStdString() +
                         " (is a Secret Service keyring such as gnome-keyring running and unlocked?)");
}

Error timedOut(const std::string& what) {
    return makeError(ErrorCode::System, what + ": the OS keychain did not answer within " +
                                            std::to_string(KeychainSecretStore::kJobTimeout.count() / 1000) +
                                            " s (is it waiting to be unlocked?)");
}

} // namespace

KeychainSecretStore::KeychainSecretStore(std::string service) : m_service(std::move(service)) {}

Result<std::optional<std::string>> KeychainSecretStore::read(const std::string& name) {
    const std::string what = "cannot read \"" + name + "\" from the OS keychain";
    std::unique_ptr<QKeychain::ReadPasswordJob> job(newJob<QKeychain::ReadPasswordJob>(m_service, name));
    if (!runToCompletion(job.get())) {
        job.release(); // deletes itself when it finishes
        return timedOut(what);
    }
    if (job->error() == QKeychain::EntryNotFound)
        return std::optional<std::string>{};
    if (job->error() != QKeychain::NoError)
        return keychainError(what, *job);
    return std::optional<std::string>{job->binaryData().toStdString()};
}

Status KeychainSecretStore::write(const std::string& name, const std::string& secret) {
    const std::string what = "cannot store \"" + name + "\" in the OS keychain";
    std::unique_ptr<QKeychain::WritePasswordJob> job(newJob<QKeychain::WritePasswordJob>(m_service, name));
    job->setBinaryData(QByteArray::fromStdString(secret));
    if (!runToCompletion(job.get())) {
        job.release();
        return timedOut(what);
    }
    if (job->error() != QKeychain::NoError)
        return keychainError(what, *job);
    return Ok{};
}

Status KeychainSecretStore::remove(const std::string& name) {
    const std::string what = "cannot delete \"" + name + "\" from the OS keychain";
    std::unique_ptr<QKeychain::DeletePasswordJob> job(newJob<QKeychain::DeletePasswordJob>(m_service, name));
    if (!runToCompletion(job.get())) {
        job.release();
        return timedOut(what);
    }
    if (job->error() != QKeychain::NoError && job->error() != QKeychain::EntryNotFound)
        return keychainError(what, *job);
    return Ok{};
}

Status KeychainSecretStore::probe() {
    const std::string value = std::to_string(QRandomGenerator::system()->generate64());
    if (auto written = write(kProbeName, value); !written)
        return written;
    auto readBack = read(kProbeName);
    if (!readBack)
        return readBack.error();
    if (*readBack != value)
        return makeError(ErrorCode::System, "the OS keychain did not return what was stored in it");
    return remove(kProbeName);
}

} // namespace warren::control
