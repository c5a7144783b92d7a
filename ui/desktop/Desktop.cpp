#include "ui/desktop/Desktop.h"

#include "ui/desktop/SingleInstance.h"
#include "ui/windows/MainWindow.h"

#include <QApplication>
#include <QMessageBox>
#include <QStatusBar>
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

int runDesktop(int& argc, char** argv, const std::string& instanceKey, const ControlPlaneOpener& open) {
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

    auto opened = open();
    if (!opened) {
        QMessageBox::critical(nullptr, QStringLiteral("Warren"),
                              QString::fromStdString("Warren cannot open its data: " + opened.error().message));
        return 1;
    }
    MainWindow window(*opened->plane);
    QObject::connect(&instance, &SingleInstance::activated, &window, &MainWindow::bringToFront);
    if (!opened->notice.empty())
        window.statusBar()->showMessage(QString::fromStdString(opened->notice));
    window.show();
    return QApplication::exec();
}

} // namespace warren::ui
