#include "Desktop.h"

#include "DataDir.h"
#include "LocalControlPlane.h"
#include "MainWindow.h"
#include "SingleInstance.h"

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

int runDesktop(int& argc, char** argv, const std::optional<std::string>& dataDir) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("warren"));
    QApplication::setApplicationDisplayName(QStringLiteral("Warren"));
    QGuiApplication::setDesktopFileName(QStringLiteral("warren"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/warren/icons/warren.png")));

    const std::string root = dataDir.value_or(control::DataDir::defaultRoot());
    SingleInstance instance(SingleInstance::serverName(QString::fromStdString(root)));
    if (!instance.claim()) {
        std::cerr << "warren: Warren is already open for " << root << "; brought its window to the front\n";
        return 0;
    }

    control::LocalOptions options;
    options.dataDir = root;
    auto plane = control::LocalControlPlane::open(std::move(options));
    if (!plane) {
        QMessageBox::critical(nullptr, QStringLiteral("Warren"),
                              QString::fromStdString("Warren cannot open its data: " + plane.error().message));
        return 1;
    }
    MainWindow window(**plane);
    QObject::connect(&instance, &SingleInstance::activated, &window, &MainWindow::bringToFront);
    if (const auto recovered = (*plane)->recovered(); !recovered.empty())
        window.statusBar()->showMessage(
            QObject::tr("%n task(s) were running when Warren last stopped; they are marked interrupted and can be "
                        "resumed.",
                        nullptr, static_cast<int>(recovered.size())));
    window.show();
    return QApplication::exec();
}

} // namespace warren::ui
