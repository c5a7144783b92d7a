#pragma once
// Lists of strings between the tests' Qt data rows and the std::vector<std::string> the code takes.

#include <QStringList>
#include <string>
#include <vector>

namespace warren::test {

inline std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(list.size()));
    for (const QString& item : list)
        out.push_back(item.toStdString());
    return out;
}

inline QStringList toQt(const std::vector<std::string>& list) {
    QStringList out;
    for (const std::string& item : list)
        out << QString::fromStdString(item);
    return out;
}

} // namespace warren::test
