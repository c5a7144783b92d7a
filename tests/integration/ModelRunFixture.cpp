#include "tests/integration/ModelRunFixture.h"

#include <QDir>
#include <QRandomGenerator>
#include <QTest>

using nlohmann::json;

namespace warren::test {

ModelRunFixture::ModelRunFixture(bool anthropic)
    : m_anthropic(anthropic), m_workspace(m_root.filePath("workspace")), m_dataDir(m_root.filePath("data")),
      m_key("sk-mock-" + QString::number(QRandomGenerator::global()->generate64(), 16)) {
    m_server.behaveLike(anthropic ? RealApi::Anthropic : RealApi::OpenAi);
    m_ready = m_root.isValid() && QDir().mkpath(m_workspace) && m_server.listen();
    m_provider =
        anthropic ? "anthropic:" + m_server.baseUrl() : "openai-compatible:" + m_server.baseUrl() + "/v1";
}

void ModelRunFixture::enqueueStream(const QByteArray& stream) {
    m_server.enqueue(MockResponse::sse(splitChunks(stream, 61)));
}

QStringList ModelRunFixture::task(const QString& prompt, const QString& model,
                                  const QStringList& options) const {
    return QStringList{"--provider", m_provider, "--model", model} + options +
           QStringList{"--workspace", m_workspace, prompt};
}

WarrenResult ModelRunFixture::run(const QString& prompt, const QString& model,
                                  const QStringList& options) const {
    return warren(QStringList{"run", "--json", "--approve", "auto"} + task(prompt, model, options));
}

WarrenResult ModelRunFixture::warren(const QStringList& args) const {
    return runWarren(args, m_dataDir, environment());
}

WarrenResult ModelRunFixture::warrenOnTerminal(const QStringList& args) const {
    return runWarrenOnTerminal(args, m_dataDir, environment());
}

QProcessEnvironment ModelRunFixture::environment() const {
    QProcessEnvironment environment = warrenEnvironment(m_dataDir);
    for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WARREN_OPENAI_COMPATIBLE_API_KEY"})
        environment.remove(name);
    if (!m_key.isEmpty())
        environment.insert(m_anthropic ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY", m_key);
    return environment;
}

json ModelRunFixture::onlyTask() const {
    const auto tasks = jsonLines(warren({"tasks", "--json"}).out);
    return tasks.size() == 1 ? tasks.front() : json();
}

std::vector<json> ModelRunFixture::storedEvents(const QString& id) const {
    return jsonLines(warren({"show", id, "--json"}).out);
}

void addApiRows() {
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("openai-compatible") << false;
    QTest::newRow("anthropic") << true;
}

std::vector<json> ofType(const std::vector<json>& events, const char* type) {
    std::vector<json> found;
    for (const auto& event : events)
        if (event.value("type", "") == type)
            found.push_back(event);
    return found;
}

QString describe(const WarrenResult& result) {
    return QString::fromUtf8("exit " + QByteArray::number(result.exitCode) + "\nstderr:\n" +
                             result.err.right(3000) + "\nstdout (tail):\n" + result.out.right(3000));
}

} // namespace warren::test
