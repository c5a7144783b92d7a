#include "app/secrets/KeychainSecretStore.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QThread>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <qt6keychain/keychain.h>

namespace warren::control {

namespace {

constexpr const char* kProbeName = "warren-keychain-probe";

// The thread every keychain job runs on, with an event loop of its own for qtkeychain's D-Bus replies: the
// caller waits for the job's end without running any event loop of its own, so nothing of the caller's (a
// window's click, a stream's event) runs in the middle of a keychain call.
QThread& keychainThread() {
    static QThread* thread = [] {
        auto* started = new QThread;
        started->setObjectName(QStringLiteral("keychain"));
        started->start();
        // Stopped at exit, after the last job.
        QObject::connect(QCoreApplication::instance(), &QObject::destroyed, started, [started] {
            started->quit();
            started->wait();
        }, Qt::DirectConnection);
        return started;
    }();
    return *thread;
}

// Starts the job on the keychain thread and waits for it, at most KeychainSecretStore::kJobTimeout. False on
// timeout: the job is then left to delete itself should the keychain ever answer, since it may still run.
// On true the job has finished: its results may be read, and it goes with deleteLater.
bool runToCompletion(QKeychain::Job* job) {
    struct Outcome {
        std::mutex mutex;
        std::condition_variable ended;
        bool finished = false;
        bool abandoned = false;
    };
    auto outcome = std::make_shared<Outcome>();
    job->moveToThread(&keychainThread());
    QObject::connect(job, &QKeychain::Job::finished, job, [outcome, job] {
        std::lock_guard lock(outcome->mutex);
        outcome->finished = true;
        if (outcome->abandoned)
            job->deleteLater();
        outcome->ended.notify_all();
    }, Qt::DirectConnection);
    QMetaObject::invokeMethod(job, [job] { job->start(); }, Qt::QueuedConnection);
    std::unique_lock lock(outcome->mutex);
    if (outcome->ended.wait_for(lock, KeychainSecretStore::kJobTimeout, [&] { return outcome->finished; }))
        return true;
    outcome->abandoned = true;
    return false;
}

template <typename JobType> JobType* newJob(const std::string& service, const std::string& name) {
    auto* job = new JobType(QString::fromStdString(service));
    job->setAutoDelete(false);
    job->setInsecureFallback(false); // never the plain-text QSettings store qtkeychain could fall back to
    job->setKey(QString::fromStdString(name));
    return job;
}

// A finished job lives on the keychain thread: it goes from there.
struct LaterDeleter {
    void operator()(QObject* job) const { job->deleteLater(); }
};
template <typename JobType> using JobPtr = std::unique_ptr<JobType, LaterDeleter>;

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
    JobPtr<QKeychain::ReadPasswordJob> job(newJob<QKeychain::ReadPasswordJob>(m_service, name));
    if (!runToCompletion(job.get())) {
        job.release(); // goes when it finishes
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
    JobPtr<QKeychain::WritePasswordJob> job(newJob<QKeychain::WritePasswordJob>(m_service, name));
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
    JobPtr<QKeychain::DeletePasswordJob> job(newJob<QKeychain::DeletePasswordJob>(m_service, name));
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
