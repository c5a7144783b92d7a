#include "ui/widgets/MultiChoiceButton.h"

#include <QMenu>

namespace warren::ui {

MultiChoiceButton::MultiChoiceButton(const QString& noneText, QWidget* parent)
    : QToolButton(parent), m_noneText(noneText) {
    setPopupMode(QToolButton::InstantPopup);
    setMenu(new QMenu(this));
    connect(menu(), &QMenu::triggered, this, &MultiChoiceButton::updateText);
    updateText();
}

void MultiChoiceButton::setChoices(const QStringList& names) {
    const QStringList ticked = checked();
    menu()->clear();
    for (const QString& name : names) {
        QAction* action = menu()->addAction(name);
        action->setCheckable(true);
        action->setChecked(ticked.contains(name));
    }
    updateText();
}

QStringList MultiChoiceButton::choices() const {
    QStringList names;
    for (const QAction* action : menu()->actions())
        names << action->text();
    return names;
}

void MultiChoiceButton::setChecked(const QStringList& names) {
    for (QAction* action : menu()->actions())
        action->setChecked(names.contains(action->text()));
    updateText();
}

QStringList MultiChoiceButton::checked() const {
    QStringList names;
    for (const QAction* action : menu()->actions())
        if (action->isChecked())
            names << action->text();
    return names;
}

void MultiChoiceButton::updateText() {
    const QStringList ticked = checked();
    setText(ticked.isEmpty() ? m_noneText : ticked.join(QStringLiteral(", ")));
}

} // namespace warren::ui
