#pragma once
// What the server benchmarks read of a process and of an event, from /proc and the event's `ts`: its memory
// (a VmXXX line of /proc/PID/status, in KiB), its peak memory started again from now, its CPU seconds, the
// processes below it with their memory, and an event's time as milliseconds since the epoch.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QList>
#include <QString>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>
#include <string>
#include <unistd.h>

namespace warren::bench {

// "2026-11-29T10:52:03.123Z" as milliseconds since the epoch; -1 when it is not of that form.
inline std::int64_t epochMs(const std::string& ts) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
    if (ts.size() != 24 ||
        std::sscanf(ts.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &y, &mo, &d, &h, &mi, &s, &ms) != 7)
        return -1;
    using namespace std::chrono;
    const sys_days date = year{y} / month{static_cast<unsigned>(mo)} / day{static_cast<unsigned>(d)};
    return duration_cast<milliseconds>(date.time_since_epoch()).count() + ((h * 60 + mi) * 60 + s) * 1000LL +
           ms;
}

inline long statusKb(qint64 pid, const QByteArray& field) { // a VmXXX line of /proc/PID/status; -1: none
    QFile status("/proc/" + QString::number(pid) + "/status");
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith(field + ":"))
            return line.mid(field.size() + 1).trimmed().split(' ').value(0).toLong();
    return -1;
}

inline bool resetPeakMemory(qint64 pid) { // "5": the peak resident set size (VmHWM) starts again from now
    QFile refs("/proc/" + QString::number(pid) + "/clear_refs");
    return refs.open(QIODevice::WriteOnly) && refs.write("5") == 1;
}

inline double cpuSecondsOf(qint64 pid) { // utime + stime of /proc/PID/stat
    QFile stat("/proc/" + QString::number(pid) + "/stat");
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    return (fields.value(11).toDouble() + fields.value(12).toDouble()) /
           static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Every process below pid (its children, theirs, ...: a server's sandboxes and their agents), their resident
// memory summed (shared pages counted in each), and how many of pid's own children run `sandboxCommand`
// (one per task's sandbox).
struct ProcessesBelow {
    int count = 0;
    long rssKb = 0;
    int sandboxes = 0;
};
inline ProcessesBelow processesBelow(qint64 pid, const QByteArray& sandboxCommand = "bwrap") {
    std::map<qint64, std::vector<qint64>> children;
    std::map<qint64, QByteArray> names;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const qint64 id = entry.toLongLong(&number);
        QFile stat("/proc/" + entry + "/stat");
        if (!number || !stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const qsizetype open = text.indexOf('('), close = text.lastIndexOf(')');
        if (open < 0 || close < open)
            continue;
        names[id] = text.mid(open + 1, close - open - 1);
        children[text.mid(close + 2).split(' ').value(1).toLongLong()].push_back(id); // field 4: the parent
    }
    ProcessesBelow found;
    for (const qint64 child : children[pid])
        found.sandboxes += names[child] == sandboxCommand ? 1 : 0;
    std::vector<qint64> todo = children[pid];
    while (!todo.empty()) {
        const qint64 id = todo.back();
        todo.pop_back();
        ++found.count;
        found.rssKb += std::max(0L, statusKb(id, "VmRSS"));
        for (const qint64 child : children[id])
            todo.push_back(child);
    }
    return found;
}

} // namespace warren::bench
