#include "ui/windows/AgentChoices.h"

#include <QComboBox>
#include <QCoreApplication>
#include <algorithm>

namespace warren::ui {

namespace {

struct Choice {
    const char* label;
    protocol::AgentKind agent;
};

constexpr Choice kAgents[] = {
    {QT_TRANSLATE_NOOP("AgentChoices", "Warren agent"), protocol::AgentKind::Warren},
    {QT_TRANSLATE_NOOP("AgentChoices", "Claude Code"), protocol::AgentKind::ClaudeCode},
    {QT_TRANSLATE_NOOP("AgentChoices", "Codex"), protocol::AgentKind::Codex},
};

} // namespace

void fillAgents(QComboBox* box, const QString& current) {
    box->clear();
    for (const Choice& choice : kAgents)
        box->addItem(QCoreApplication::translate("AgentChoices", choice.label),
                     QString::fromUtf8(protocol::agentKindName(choice.agent)));
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

protocol::AgentKind chosenAgent(const QComboBox* box) {
    const auto agent = protocol::parseAgentKind(box->currentData().toString().toStdString());
    return agent ? *agent : protocol::AgentKind::Warren;
}

} // namespace warren::ui
