#include "ui/models/TimelineModel.h"

#include <set>

namespace warren::ui {

using nlohmann::json;
using Card = timeline::TimelineCard;

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

// Colours of a unified diff's lines, as palette indices of the ANSI parser's styles.
void appendDiff(StyledText& body, const std::string& diff) {
    std::size_t start = 0;
    while (start < diff.size()) {
        std::size_t end = diff.find('\n', start);
        end = end == std::string::npos ? diff.size() : end + 1;
        const std::string line = diff.substr(start, end - start);
        TextStyle style;
        if (line.starts_with("+++") || line.starts_with("---"))
            style.bold = true;
        else if (line.starts_with('+'))
            style.fg = 2; // green
        else if (line.starts_with('-'))
            style.fg = 1; // red
        else if (line.starts_with("@@"))
            style.fg = 6; // cyan
        body.append(qs(line), style);
        start = end;
    }
}

} // namespace

void TimelineModel::reset(const QString& taskId, const QString& prompt) {
    beginResetModel();
    m_taskId = taskId;
    m_fold = timeline::TimelineFold(prompt.toStdString());
    m_items.clear();
    m_lastSeq = 0;
    m_items.emplace_back();
    sync(0);
    m_committed = m_items.size();
    endResetModel();
    emit activityChanged();
}

const TimelineItem* TimelineModel::item(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < m_committed ? &m_items[static_cast<std::size_t>(row)] : nullptr;
}

int TimelineModel::lastChangeOf(const QString& path) const {
    const auto row = m_fold.lastChangeOf(path.toStdString());
    return row ? static_cast<int>(*row) : -1;
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_committed);
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
    const TimelineItem* it = item(index.row());
    if (!it)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return it->title;
    case Qt::ToolTipRole:
        return it->detail;
    case KindRole:
        return static_cast<int>(it->kind);
    case StateRole:
        return static_cast<int>(it->state);
    case CallIdRole:
        return it->callId;
    default:
        return {};
    }
}

void TimelineModel::setExpanded(int row, bool expanded) {
    if (row < 0 || static_cast<std::size_t>(row) >= m_committed)
        return;
    m_items[static_cast<std::size_t>(row)].expanded = expanded;
    ++m_items[static_cast<std::size_t>(row)].version;
    emit dataChanged(index(row), index(row));
}

void TimelineModel::append(const std::vector<json>& events) {
    std::set<std::size_t> changed; // items the view already shows whose content changed
    const std::size_t before = m_committed;
    for (const json& event : events) {
        if (!event.is_object())
            continue;
        const auto seq = event.value("seq", std::uint64_t{0});
        if (seq <= m_lastSeq)
            continue;
        m_lastSeq = seq;
        auto read = timeline::readEvent(event);
        if (!read)
            continue;
        for (const std::size_t index : m_fold.apply(*read)) {
            if (index < m_items.size()) {
                sync(index);
                ++m_items[index].version;
                changed.insert(index);
            }
        }
        while (m_items.size() < m_fold.cards().size()) {
            m_items.emplace_back();
            sync(m_items.size() - 1);
        }
    }
    if (m_items.size() > m_committed) {
        beginInsertRows({}, static_cast<int>(m_committed), static_cast<int>(m_items.size()) - 1);
        m_committed = m_items.size();
        endInsertRows();
    }
    if (auto first = changed.begin(); first != changed.end() && *first < before) {
        const auto last = std::prev(changed.lower_bound(before));
        emit dataChanged(index(static_cast<int>(*first)), index(static_cast<int>(*last)));
    }
    if (!events.empty())
        emit activityChanged();
}

void TimelineModel::sync(std::size_t index) {
    const Card& card = m_fold.cards()[index];
    TimelineItem& item = m_items[index];
    const bool fresh = item.styledBytes == 0 && item.body.isEmpty();
    item.kind = card.kind;
    item.state = card.state;
    item.step = card.step;
    item.firstSeq = card.firstSeq;
    item.title = qs(card.title);
    item.detail = qs(card.detail);
    item.prose = qs(card.prose);
    item.callId = qs(card.callId);
    item.path = qs(card.path);
    item.commandPrefix = qs(card.commandPrefix);
    switch (card.bodyKind) {
    case Card::Body::None:
        break;
    case Card::Body::Output: // grows: only what arrived since the last sync is styled
        if (card.body.size() > item.styledBytes) {
            item.body.append(item.parser.feed(std::string_view(card.body).substr(item.styledBytes)));
            item.styledBytes = card.body.size();
        }
        break;
    case Card::Body::Diff:
        if (fresh) {
            appendDiff(item.body, card.body);
            if (card.diffTruncated) {
                TextStyle quiet;
                quiet.dim = true;
                item.body.append(tr("… (the diff is longer; only its start is kept)\n"), quiet);
            }
            item.styledBytes = card.body.size() + 1;
        }
        break;
    case Card::Body::Plain:
        if (fresh) {
            item.body.append(qs(card.body));
            item.styledBytes = card.body.size() + 1;
        }
        break;
    }
}

} // namespace warren::ui
