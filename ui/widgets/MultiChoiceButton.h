#pragma once
// A button whose menu holds names to tick (the new-task bar's presets and secrets); its text says which are
// ticked, or what none means.

#include <QStringList>
#include <QToolButton>

namespace warren::ui {

class MultiChoiceButton : public QToolButton {
    Q_OBJECT
public:
    explicit MultiChoiceButton(const QString& noneText, QWidget* parent = nullptr);

    // The names offered; those ticked before and still offered stay ticked.
    void setChoices(const QStringList& names);
    QStringList choices() const;
    void setChecked(const QStringList& names); // only these ticked
    QStringList checked() const;

private:
    void updateText();
    QString m_noneText;
};

} // namespace warren::ui
