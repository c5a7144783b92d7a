#include "tests/gui/DesktopFixture.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTimer>

namespace warren::test {

using nlohmann::json;

bool DesktopFixture::open(bool useKeychain) {
    if (!m_data.isValid())
        return false;
    control::LocalOptions options;
    options.dataDir = m_data.path().toStdString();
    options.useKeychain = useKeychain;
    if (qgetenv("WARREN_AGENT_STATIC") == "0") {
        // A sanitizer-built agent (as tests/support/WarrenRun.cpp explains): no leak check inside the
        // sandbox, no address-space limit for its shadow memory.
        options.extraProfileLayers.push_back(
            json{{"env", {{"ASAN_OPTIONS", "detect_leaks=0"}}}, {"limits", {{"memory_mb", 0u}}}});
    }
    auto plane = control::LocalControlPlane::open(std::move(options));
    if (!plane) {
        qWarning("cannot open the control plane: %s", plane.error().message.c_str());
        return false;
    }
    m_plane = std::move(*plane);
    m_window = std::make_unique<ui::MainWindow>(*m_plane);
    QSignalSpy listed(m_window.get(), &ui::MainWindow::tasksListed);
    m_window->show();
    return listed.wait(30000); // the window asks for its tasks and shows them when they come
}

void DesktopFixture::close() {
    m_window.reset();
    m_plane.reset();
}

QString DesktopFixture::useScript(const std::vector<json>& turns, const json& agents) {
    const QString path = m_data.filePath(QStringLiteral("script-%1.json").arg(++m_scripts));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    json script{{"turns", turns}};
    if (!agents.is_null())
        script["agents"] = agents;
    file.write(QByteArray::fromStdString(script.dump()));
    file.close();
    auto settings = m_plane->settings();
    if (!settings)
        return {};
    settings->provider = "scripted:" + path.toStdString();
    (void)m_plane->saveSettings(*settings);
    return path;
}

namespace {

// Runs the event loop until done() or the timeout.
bool spinUntil(const std::function<bool()>& done, int timeoutMs) {
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    timeout.start(timeoutMs);
    poll.start(10);
    if (!done())
        loop.exec();
    return done();
}

} // namespace

control::TaskStatus DesktopFixture::status(const QString& taskId) {
    auto task = m_plane->task(taskId.toStdString());
    return task && *task ? (*task)->status : control::TaskStatus::Queued;
}

QByteArray DesktopFixture::describe(const QString& taskId) {
    auto task = m_plane->task(taskId.toStdString());
    if (!task || !*task)
        return "no such task";
    return QByteArray(control::taskStatusName((*task)->status)) + ": " + QByteArray::fromStdString((*task)->error);
}

bool DesktopFixture::waitFinished(const QString& taskId, int timeoutMs) {
    const bool ended = spinUntil([&] { return control::isFinal(status(taskId)) ||
                                              status(taskId) == control::TaskStatus::Paused ||
                                              status(taskId) == control::TaskStatus::Waiting; },
                                 timeoutMs);
    QCoreApplication::processEvents();
    m_window->flushEvents();
    return ended;
}

bool DesktopFixture::waitEvent(const QString& taskId, const std::string& type, int timeoutMs) {
    return spinUntil(
        [&] {
            auto events = m_plane->events(taskId.toStdString());
            if (!events)
                return false;
            for (const json& event : *events)
                if (event.value("type", "") == type)
                    return true;
            return false;
        },
        timeoutMs);
}

json turn(const std::string& content, const std::string& tool, json arguments) {
    json value{{"content", content}};
    if (!tool.empty())
        value["tool_calls"] = json::array({json{{"name", tool}, {"arguments", std::move(arguments)}}});
    return value;
}

QString deadUrl() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return QStringLiteral("http://127.0.0.1:%1").arg(port);
}

} // namespace warren::test
