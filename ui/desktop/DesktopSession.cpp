#include "ui/desktop/DesktopSession.h"

#include "ui/windows/MainWindow.h"

#include <QStatusBar>

namespace warren::ui {

DesktopSession::DesktopSession(ControlPlaneOpener open, control::PlaneChooser* chooser, QObject* parent)
    : QObject(parent), m_open(std::move(open)), m_chooser(chooser) {}

DesktopSession::~DesktopSession() {
    m_window.reset(); // it holds a reference to the plane
    m_plane.reset();
}

Status DesktopSession::start() {
    return open({});
}

Status DesktopSession::open(const QByteArray& geometry) {
    auto opened = m_open();
    if (!opened)
        return opened.error();
    m_plane = std::move(opened->plane);
    m_window = std::make_unique<MainWindow>(*m_plane);
    if (m_chooser)
        m_window->setPlaneChooser(m_chooser, control::PlaneChoice{opened->kind, opened->url});
    connect(m_window.get(), &MainWindow::controlPlaneChosen, this, &DesktopSession::reopen);
    if (!geometry.isEmpty())
        m_window->restoreGeometry(geometry);
    if (!opened->notice.empty())
        m_window->statusBar()->showMessage(QString::fromStdString(opened->notice));
    m_window->show();
    emit windowOpened();
    return Ok{};
}

void DesktopSession::reopen() {
    if (m_reopening)
        return;
    m_reopening = true;
    // Called from inside the window (its Settings dialog's Save), so neither may be destroyed now: they go by
    // deleteLater. Qt may run that inside a nested event loop, such as the one a server call waits in, so
    // first the plane is cut off from every face (the window would answer its next event with a call): with
    // no call of the old plane under way (a click is never delivered inside one) and none started after
    // this, it can go wherever Qt deletes it. Only then does the new plane open: two planes never share the
    // data directory's tasks.
    MainWindow* window = m_window.release();
    control::ControlPlane* plane = m_plane.release();
    const QByteArray geometry = window->saveGeometry();
    plane->disconnect();
    window->disconnect(this);
    window->hide();
    window->deleteLater();
    plane->deleteLater();
    connect(plane, &QObject::destroyed, this, [this, geometry] {
        QMetaObject::invokeMethod(
            this,
            [this, geometry] {
                m_reopening = false;
                if (auto opened = open(geometry); !opened)
                    emit failed(QString::fromStdString(opened.error().message));
            },
            Qt::QueuedConnection);
    });
}

} // namespace warren::ui
