#include "app/tasks/TaskSecrets.h"

#include "app/secrets/SecretStore.h"
#include "common/JsonFields.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QSslConfiguration>

namespace warren::control {

namespace {

std::string randomPlaceholder() {
    std::array<quint32, 4> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    std::array<std::uint8_t, 16> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(words[i / 4] >> (8 * (i % 4)));
    return makePlaceholder(bytes);
}

// Public certificates only: readable by the sandbox's user, whoever that is.
// bytes as the whole of path, replaced at once, with those permissions; what names the file in the error.
Status saveWhole(const std::string& path, const QByteArray& bytes, QFile::Permissions permissions,
                 const std::string& what) {
    QSaveFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.setPermissions(permissions) ||
        !file.commit())
        return makeError(ErrorCode::System, "cannot " + what + " " + path + ": " + file.errorString().toStdString());
    return Ok{};
}

Status writeCertificates(const std::string& path, const QByteArray& pem) {
    return saveWhole(path, pem, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther,
                     "write the task's certificate authority to");
}

} // namespace

Result<HostSecret> lookUpHostSecret(const std::string& name, SecretStore& store) {
    auto stored = store.read(hostSecretEntry(name));
    if (!stored)
        return makeError(stored.error().code, "cannot read the secret " + name + ": " + stored.error().message);
    if (!*stored)
        return makeError(ErrorCode::NotFound, "no secret " + name + ": store it with `warren secrets set " + name +
                                                  " --host HOST` (the value is read from stdin)");
    return readHostSecret(name, **stored);
}

Result<std::vector<TaskSecret>> lookUpTaskSecrets(const TaskRecord& task, const TaskSpec& spec, const FaceHooks& face,
                                                  const std::string& taskDir) {
    if (spec.secrets.empty())
        return std::vector<TaskSecret>();
    const QString keptPath = QString::fromStdString(taskDir + "/secret-placeholders.json");
    QFile keptFile(keptPath);
    const nlohmann::json kept = keptFile.open(QIODevice::ReadOnly)
                                    ? nlohmann::json::parse(keptFile.readAll().toStdString(), nullptr, false)
                                    : nlohmann::json::object();
    nlohmann::json placeholders = nlohmann::json::object();
    std::vector<TaskSecret> secrets;
    for (const std::string& name : spec.secrets) {
        if (!face.hostSecret)
            return makeError(ErrorCode::Unsupported, "this control plane keeps no secrets for hosts (--secret " + name + ")");
        auto secret = face.hostSecret(task, name);
        if (!secret)
            return secret.error();
        const std::string earlier = kept.is_object() ? json_fields::memberString(kept, name.c_str()) : std::string();
        const bool reusable = earlier.size() == kPlaceholderLength && earlier.starts_with(kPlaceholderPrefix);
        secrets.push_back({std::move(*secret), reusable ? earlier : randomPlaceholder()});
        placeholders[name] = secrets.back().placeholder;
    }
    if (!QDir().mkpath(QString::fromStdString(taskDir)))
        return makeError(ErrorCode::System, "cannot make the task's directory " + taskDir);
    if (auto saved = saveWhole(keptPath.toStdString(), QByteArray::fromStdString(placeholders.dump()),
                               QFile::ReadOwner | QFile::WriteOwner, "keep the task's secret placeholders in");
        !saved)
        return saved.error();
    return secrets;
}

Result<std::unique_ptr<SecretProxy>> startSecretProxy(const LaunchPlan& plan, const std::string& egressCa,
                                                      std::vector<TaskSecret> secrets) {
    if (secrets.empty())
        return std::unique_ptr<SecretProxy>();
    std::vector<HostRule> hosts;
    for (const TaskSecret& secret : secrets)
        hosts.insert(hosts.end(), secret.secret.hosts.begin(), secret.secret.hosts.end());
    auto authority = TaskAuthority::create(hosts);
    if (!authority)
        return authority.error();
    const QByteArray own = QByteArray::fromStdString((*authority)->certificatePem());
    // The system's store, read once: the sandbox's bundle, and what this end trusts upstream.
    QList<QSslCertificate> upstream = QSslConfiguration::systemCaCertificates();
    QByteArray bundle;
    for (const QSslCertificate& certificate : upstream)
        bundle += certificate.toPem();
    if (auto written = writeCertificates(plan.egressAuthorityFile, own); !written)
        return written.error();
    if (auto written = writeCertificates(plan.egressAuthorityBundle, bundle + own); !written)
        return written.error();
    if (!egressCa.empty()) {
        const QList<QSslCertificate> extra = QSslCertificate::fromPath(QString::fromStdString(egressCa), QSsl::Pem);
        if (extra.isEmpty())
            return makeError(ErrorCode::InvalidArgument,
                             "--egress-ca " + egressCa + " holds no PEM certificate (or cannot be read)");
        upstream += extra;
    }
    return std::make_unique<SecretProxy>(std::move(secrets), std::move(*authority), std::move(upstream));
}

} // namespace warren::control
