// lookUpTaskSecrets and lookUpHostSecret: a task's secrets at each launch. The face is asked for each by name
// (a missing one is an error saying how to store it); each gets a placeholder, the same one at every launch
// of the task (kept in the task's directory, which no sandbox mounts), a new one for a secret added since, and
// new ones when what was kept is not a placeholder of Warren's.
#include "app/secrets/SecretStore.h"
#include "app/tasks/TaskSecrets.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;

namespace {

FaceHooks face() {
    FaceHooks hooks;
    hooks.hostSecret = [](const TaskRecord&, const std::string& name) -> Result<HostSecret> {
        if (name == "MISSING")
            return makeError(ErrorCode::NotFound, "no secret MISSING: store it");
        return makeHostSecret(name, "api.example.com", "", "value-of-" + name);
    };
    return hooks;
}

TaskSpec withSecrets(std::vector<std::string> names) {
    TaskSpec spec;
    spec.secrets = std::move(names);
    return spec;
}

std::string placeholderOf(const std::vector<TaskSecret>& secrets, const std::string& name) {
    for (const auto& secret : secrets)
        if (secret.secret.name == name)
            return secret.placeholder;
    return {};
}

} // namespace

class TestTaskSecrets : public QObject {
    Q_OBJECT

private slots:
    void placeholdersAreKeptAcrossLaunches();
    void whatWasKeptIsUsedOnlyWhenItIsAPlaceholder();
    void aMissingSecretIsAnError();
    void aFaceWithoutSecretsRefuses();
    void hostSecretsAreReadFromTheStore();
};

void TestTaskSecrets::placeholdersAreKeptAcrossLaunches() {
    QTemporaryDir dir;
    const std::string taskDir = dir.filePath("tasks/t-1").toStdString(); // not made yet: the first launch makes it
    TaskRecord task;
    task.id = "t-1";
    auto first = lookUpTaskSecrets(task, withSecrets({"A", "B"}), face(), taskDir);
    QVERIFY2(first, first ? "" : first.error().message.c_str());
    QCOMPARE(first->size(), std::size_t(2));
    const std::string a = placeholderOf(*first, "A"), b = placeholderOf(*first, "B");
    QVERIFY(a.starts_with("warren-secret-") && a.size() == 46 && a != b);
    QCOMPARE(first->front().secret.value, std::string("value-of-A"));
    const QFile kept(QString::fromStdString(taskDir + "/secret-placeholders.json"));
    QCOMPARE(kept.permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());

    auto again = lookUpTaskSecrets(task, withSecrets({"A", "B", "C"}), face(), taskDir);
    QVERIFY(again);
    QCOMPARE(placeholderOf(*again, "A"), a);
    QCOMPARE(placeholderOf(*again, "B"), b);
    const std::string c = placeholderOf(*again, "C");
    QVERIFY(c.starts_with("warren-secret-") && c != a && c != b);
    // The value never goes to the file.
    QFile file(kept.fileName());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("value-of-"));
}

void TestTaskSecrets::whatWasKeptIsUsedOnlyWhenItIsAPlaceholder() {
    QTemporaryDir dir;
    TaskRecord task;
    task.id = "t-2";
    for (const QByteArray& kept : {QByteArray("not json"), QByteArray(R"({"A": "the-real-value"})"),
                                   QByteArray(R"({"A": 7})"), QByteArray(R"(["A"])")}) {
        QFile file(dir.filePath("secret-placeholders.json"));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(kept);
        file.close();
        auto secrets = lookUpTaskSecrets(task, withSecrets({"A"}), face(), dir.path().toStdString());
        QVERIFY(secrets);
        const std::string placeholder = placeholderOf(*secrets, "A");
        QVERIFY2(placeholder.starts_with("warren-secret-") && placeholder.size() == 46, kept.constData());
    }
}

void TestTaskSecrets::aMissingSecretIsAnError() {
    QTemporaryDir dir;
    auto secrets = lookUpTaskSecrets(TaskRecord{}, withSecrets({"A", "MISSING"}), face(), dir.path().toStdString());
    QVERIFY(!secrets);
    QVERIFY(secrets.error().message.find("no secret MISSING") != std::string::npos);
}

void TestTaskSecrets::aFaceWithoutSecretsRefuses() {
    QTemporaryDir dir;
    auto secrets = lookUpTaskSecrets(TaskRecord{}, withSecrets({"A"}), FaceHooks{}, dir.path().toStdString());
    QVERIFY(!secrets);
    QCOMPARE(secrets.error().code, ErrorCode::Unsupported);
    auto none = lookUpTaskSecrets(TaskRecord{}, TaskSpec{}, FaceHooks{}, dir.path().toStdString());
    QVERIFY(none && none->empty());
}

void TestTaskSecrets::hostSecretsAreReadFromTheStore() {
    QTemporaryDir dir;
    auto store = SecretStore::openFile(dir.path().toStdString());
    auto missing = lookUpHostSecret("GH_TOKEN", *store);
    QVERIFY(!missing);
    QVERIFY2(missing.error().message.find("warren secrets set GH_TOKEN --host HOST") != std::string::npos,
             missing.error().message.c_str());
    auto secret = makeHostSecret("GH_TOKEN", "api.github.com", "", "ghp_value");
    QVERIFY(secret);
    QVERIFY(store->write(hostSecretEntry("GH_TOKEN"), storedHostSecret(*secret)));
    auto read = lookUpHostSecret("GH_TOKEN", *store);
    QVERIFY(read);
    QCOMPARE(read->value, std::string("ghp_value"));
    // A provider's key of the same name is not a host secret.
    QVERIFY(store->write("OTHER", "sk-plain"));
    QVERIFY(!lookUpHostSecret("OTHER", *store));
}

QTEST_GUILESS_MAIN(TestTaskSecrets)
#include "tst_task_secrets.moc"
