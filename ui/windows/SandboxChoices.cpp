#include "SandboxChoices.h"

#include <algorithm>
#include <QComboBox>
#include <QCoreApplication>
#include <QStandardPaths>

namespace warren::ui {

namespace {

struct Choice {
    const char* label;
    const char* value;
    const char* tip;
};

constexpr Choice kBackends[] = {
    {QT_TRANSLATE_NOOP("SandboxChoices", "bubblewrap"), "bwrap", nullptr},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Podman"), "podman", nullptr},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Docker"), "docker", nullptr},
};

constexpr Choice kNetworks[] = {
    {QT_TRANSLATE_NOOP("SandboxChoices", "No network"), "none",
     QT_TRANSLATE_NOOP("SandboxChoices", "The agent cannot open internet sockets at all")},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Loopback only"), "loopback",
     QT_TRANSLATE_NOOP("SandboxChoices", "The sandbox's own 127.0.0.1, so test servers run; nothing outside it")},
};

QString tr(const char* text) { return QCoreApplication::translate("SandboxChoices", text); }

void select(QComboBox* box, const QString& current) {
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

} // namespace

void fillBackends(QComboBox* box, const QString& current) {
    box->clear();
    for (const Choice& choice : kBackends) {
        const QString value = QString::fromUtf8(choice.value);
        if (value == "bwrap" || !QStandardPaths::findExecutable(value).isEmpty())
            box->addItem(tr(choice.label), value);
        else if (value == current)
            box->addItem(tr("%1 (not found on PATH)").arg(tr(choice.label)), value);
    }
    select(box, current);
}

void fillNetworks(QComboBox* box, const QString& current) {
    box->clear();
    for (const Choice& choice : kNetworks) {
        box->addItem(tr(choice.label), QString::fromUtf8(choice.value));
        box->setItemData(box->count() - 1, tr(choice.tip), Qt::ToolTipRole);
    }
    select(box, current);
}

} // namespace warren::ui
