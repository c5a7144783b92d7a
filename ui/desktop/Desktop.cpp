#include "ui/desktop/Desktop.h"

#include "ui/desktop/DesktopSession.h"
#include "ui/desktop/SingleInstance.h"
#include "ui/windows/MainWindow.h"

#include <QApplication>
#include <QMessageBox>
#include <cstdlib>
#include <iostream>

namespace warren::ui {

namespace {

bool environmentSet(const char* name) {
    const char* value = std::getenv(name);
    return value && *value;
}

} // namespace

bool displayAvailable() {
    return environmentSet("DISPLAY") || environmentSet("WAYLAND_DISPLAY") || environmentSet("QT_QPA_PLATFORM");
}

int runDesktop(int& argc, char** argv, const std::string& instanceKey, const ControlPlaneOpener& open,
               control::PlaneChooser* chooser) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("warren"));
    QApplication::setApplicationDisplayName(QStringLiteral("Warren"));
    QGuiApplication::setDesktopFileName(QStringLiteral("warren"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/warren/icons/warren.png")));

    SingleInstance instance(SingleInstance::serverName(QString::fromStdString(instanceKey)));
    if (!instance.claim()) {
        std::cerr << "warren: Warren is already open for " << instanceKey << "; brought its window to the front\n";
        return 0;
    }

    DesktopSession session(open, chooser);
    QObject::connect(&instance, &SingleInstance::activated, &session, [&session] {
        if (MainWindow* window = session.window())
            window->bringToFront();
    });
    QObject::connect(&session, &DesktopSession::failed, &session, [](const QString& message) {
        QMessageBox::critical(nullptr, QStringLiteral("Warren"), QStringLiteral("Warren cannot open its data: ") + message);
        QApplication::exit(1);
    });
    session.start();
    return QApplication::exec();
}

} // namespace warren::ui
