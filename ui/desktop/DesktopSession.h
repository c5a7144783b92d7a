#pragma once
// The window and the control plane under it, for as long as the desktop runs. When Settings save another
// control plane (Local ⇄ Remote, another server, a new key), the session closes this window and plane and
// opens the chosen one with a new window in the same place: no restart, and the window's code never holds
// a plane that is gone.

#include "app/control/PlaneChooser.h"
#include "common/Result.h"
#include "ui/desktop/Desktop.h"

#include <QByteArray>
#include <QObject>
#include <memory>

namespace warren::ui {

class MainWindow;

class DesktopSession : public QObject {
    Q_OBJECT
public:
    // chooser may be null: the window then offers no choice of control plane. It outlives the session.
    DesktopSession(ControlPlaneOpener open, control::PlaneChooser* chooser, QObject* parent = nullptr);
    ~DesktopSession() override;

    // Opens the plane and shows the window over it (windowOpened), or says why no plane opens at all
    // (failed).
    void start();
    MainWindow* window() const { return m_window.get(); }
    control::ControlPlane* plane() const { return m_plane.get(); }

signals:
    void windowOpened();                 // after start() and after each re-open: window() is the new one
    void failed(const QString& message); // no plane opens at all

private:
    void reopen();
    void open(const QByteArray& geometry);
    void show(control::OpenedPlane opened, const QByteArray& geometry);

    ControlPlaneOpener m_open;
    control::PlaneChooser* m_chooser;
    std::unique_ptr<control::ControlPlane> m_plane;
    std::unique_ptr<MainWindow> m_window;
    bool m_opening = false; // between asking the opener and its answer
};

} // namespace warren::ui
