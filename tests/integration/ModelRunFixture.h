#pragma once
// What each control test that runs `warren` against a mock model server sets up the same way: a temporary
// root holding the workspace and the data directory, a MockLlmServer playing the API under test (its
// stream format and its refusals), a fresh key in the variable warren reads for that API, and the runs of
// `warren` with that data directory and key. The test keeps what it scripts and what it checks.
// Used by tst_control_model and tst_control_reply.

#include "tests/support/MockLlmServer.h"
#include "tests/support/WarrenRun.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <vector>

namespace warren::test {

class ModelRunFixture {
public:
    // anthropic: the server speaks Anthropic's Messages API, else an OpenAI-compatible chat completions API.
    explicit ModelRunFixture(bool anthropic);
    ModelRunFixture(const ModelRunFixture&) = delete;
    ModelRunFixture& operator=(const ModelRunFixture&) = delete;

    // Whether the root, the workspace and the listening server are there; a test checks it first.
    bool ready() const { return m_ready; }

    bool anthropic() const { return m_anthropic; }
    MockLlmServer& server() { return m_server; }
    const QString& workspace() const { return m_workspace; }
    const QString& dataDir() const { return m_dataDir; }
    const QString& key() const { return m_key; }
    // Runs from now on get no key at all: their launch fails before the agent runs a step.
    void dropKey() { m_key.clear(); }

    // The next answer: this SSE stream, cut at arbitrary byte positions so that events and lines reach the
    // client split over several reads.
    void enqueueStream(const QByteArray& stream);

    // What names the task to `warren run`: --provider, --model, the options given, --workspace, the prompt.
    QStringList task(const QString& prompt, const QString& model = "mock-1",
                     const QStringList& options = {}) const;
    // `warren run --json --approve auto` with task(...): a script's run that approves every call.
    WarrenResult run(const QString& prompt, const QString& model = "mock-1",
                     const QStringList& options = {}) const;
    // `warren ARGS` with this data directory and the key, its output read through pipes, or with stdin and
    // stdout a terminal.
    WarrenResult warren(const QStringList& args) const;
    WarrenResult warrenOnTerminal(const QStringList& args) const;

    // The one task in the data directory as `warren tasks --json` lists it; null unless there is exactly one.
    nlohmann::json onlyTask() const;
    // A task's stored events as `warren show ID --json` prints them.
    std::vector<nlohmann::json> storedEvents(const QString& id) const;

private:
    // warren's environment for this data directory without any provider's key but this one (when it has one).
    QProcessEnvironment environment() const;

    bool m_anthropic;
    QTemporaryDir m_root;
    MockLlmServer m_server;
    QString m_workspace;
    QString m_dataDir;
    QString m_provider; // the --provider value
    QString m_key;
    bool m_ready = false;
};

// The events of this type, in order.
std::vector<nlohmann::json> ofType(const std::vector<nlohmann::json>& events, const char* type);

// The data rows of a test run once against each API: a bool column "anthropic", rows "openai-compatible" and
// "anthropic", for the fixture's constructor.
void addApiRows();

// A run's exit code and the tails of its stderr and stdout: the message of a failed check on it.
QString describe(const WarrenResult& result);

} // namespace warren::test
