#include "ui/windows/SandboxChoices.h"

#include <algorithm>
#include <QComboBox>
#include <QCoreApplication>
#include <QStandardPaths>

namespace warren::ui {

namespace {

struct Choice {
    const char* label;
    sandbox::Backend backend;
};

constexpr Choice kBackends[] = {
    {QT_TRANSLATE_NOOP("SandboxChoices", "bubblewrap"), sandbox::Backend::Bwrap},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Podman"), sandbox::Backend::Podman},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Docker"), sandbox::Backend::Docker},
    {QT_TRANSLATE_NOOP("SandboxChoices", "Kubernetes Pod, played by Podman"), sandbox::Backend::Kube},
};

QString tr(const char* text) { return QCoreApplication::translate("SandboxChoices", text); }

} // namespace

void fillBackends(QComboBox* box, const QString& current) {
    box->clear();
    for (const Choice& choice : kBackends) {
        const QString value = QString::fromStdString(sandbox::backendName(choice.backend));
        const auto engine = sandbox::containerEngine(choice.backend);
        const QString program = engine == sandbox::ContainerEngine::Docker ? "docker" : "podman";
        if (!engine || !QStandardPaths::findExecutable(program).isEmpty())
            box->addItem(tr(choice.label), value);
        else if (value == current)
            box->addItem(tr("%1 (not found on PATH)").arg(tr(choice.label)), value);
    }
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

sandbox::Backend chosenBackend(const QComboBox* box) {
    const auto backend = sandbox::parseBackend(box->currentData().toString().toStdString());
    return backend ? *backend : sandbox::Backend::Bwrap;
}

} // namespace warren::ui
