#pragma once
// A row of widgets (the task's buttons) that wraps onto further rows when the space is narrower than the
// row: the window fits a small screen without hiding a control. Hidden widgets take no place. Its height
// follows its width (heightForWidth), so the layouts around it give it the rows it needs.

#include <QLayout>
#include <QList>

namespace warren::ui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr);
    ~FlowLayout() override;
    FlowLayout(const FlowLayout&) = delete;
    FlowLayout& operator=(const FlowLayout&) = delete;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override; // the widest item: every row holds at least one
    QSize sizeHint() const override;    // all in one row
    void setGeometry(const QRect& rect) override;

private:
    // Places the items in rect (only measures when !apply); the height they take.
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
};

} // namespace warren::ui
