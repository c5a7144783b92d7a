#pragma once
// The desktop window over a real LocalControlPlane in a temporary data directory, with the real
// sandboxed agent (WARREN_AGENT) and scripted models: what the GUI tests and benchmarks drive.

#include "app/control/LocalControlPlane.h"
#include "ui/windows/MainWindow.h"

#include <QString>
#include <QTemporaryDir>
#include <memory>
#include <nlohmann/json.hpp>

namespace warren::test {

class DesktopFixture {
public:
    // Opens the control plane (keys in a 0600 file unless useKeychain) and the window, shown.
    bool open(bool useKeychain = false);
    void close(); // the window, then the plane (its running agents are killed: their tasks become interrupted)

    QString dataDir() const { return m_data.path(); }
    control::LocalControlPlane& plane() { return *m_plane; }
    ui::MainWindow& window() { return *m_window; }

    // Writes a model script ({"turns": [...]}, and its sub-agents' {"agents": {ID: [...]}} when given) and
    // makes it the configured model.
    QString useScript(const std::vector<nlohmann::json>& turns, const nlohmann::json& agents = {});
    // Waits until the task ends (taskFinished), up to timeoutMs; the window's pending events are applied.
    bool waitFinished(const QString& taskId, int timeoutMs = 120000);
    // Waits until an event of this type is stored for the task.
    bool waitEvent(const QString& taskId, const std::string& type, int timeoutMs = 120000);
    control::TaskStatus status(const QString& taskId);
    // "succeeded", or the task's status and error, for a failure message.
    QByteArray describe(const QString& taskId);

private:
    QTemporaryDir m_data;
    std::unique_ptr<control::LocalControlPlane> m_plane;
    std::unique_ptr<ui::MainWindow> m_window;
    int m_scripts = 0;
};

// {"content": ..., "tool_calls": [{name, arguments}]}
nlohmann::json turn(const std::string& content, const std::string& tool = {}, nlohmann::json arguments = {});

// A URL where nothing listens: a port that was free a moment ago.
QString deadUrl();

} // namespace warren::test
