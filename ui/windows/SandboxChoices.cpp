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
};

constexpr Choice kBackends[] = {
    {QT_TRANSLATE_NOOP("SandboxChoices", "bubblewrap"), "bwrap"},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Podman"), "podman"},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Docker"), "docker"},
};

QString tr(const char* text) { return QCoreApplication::translate("SandboxChoices", text); }

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
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

} // namespace warren::ui
