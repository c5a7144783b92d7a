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

void DesktopSession::start() {
    open({});
}

void DesktopSession::open(const QByteArray& geometry) {
    m_opening = true;
    m_open(control::within(this, [this, geometry](Result<control::OpenedPlane> opened) {
        m_opening = false;
        if (!opened)
            return emit failed(QString::fromStdString(opened.error().message));
        show(std::move(*opened), geometry);
    }));
}

void DesktopSession::show(control::OpenedPlane opened, const QByteArray& geometry) {
    m_plane = std::move(opened.plane);
    m_window = std::make_unique<MainWindow>(*m_plane);
    if (m_chooser)
        m_window->setPlaneChooser(m_chooser, control::PlaneChoice{opened.kind, opened.url});
    connect(m_window.get(), &MainWindow::controlPlaneChosen, this, &DesktopSession::reopen);
    if (!geometry.isEmpty())
        m_window->restoreGeometry(geometry);
    if (!opened.notice.empty())
        m_window->statusBar()->showMessage(QString::fromStdString(opened.notice));
    m_window->show();
    emit windowOpened();
}

void DesktopSession::reopen() {
    if (m_opening || !m_window)
        return;
    m_opening = true;
    // Called from inside the window (its Settings dialog's Save), so neither may be destroyed now: they go by
    // deleteLater, the plane cut off from every face first; a call of the old plane still under way answers
    // no one (its continuation's face is gone). Only once the plane is gone does the new one open: two
    // planes never share the data directory's tasks.
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
            [this, geometry] { open(geometry); },
            Qt::QueuedConnection);
    });
}

} // namespace warren::ui
