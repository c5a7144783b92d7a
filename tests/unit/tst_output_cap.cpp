// OutputCap: what the model reads of a tool's output. Under the limit it is everything; over it, the head
// and the tail with the cut marked, never splitting a UTF-8 character; memory stays bounded whatever is
// appended.

#include "agent_core/process/OutputCap.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace warren::agent;

namespace {

std::string_view view(const QByteArray& bytes) {
    return {bytes.constData(), std::size_t(bytes.size())};
}

QByteArray bytes(const std::string& text) {
    return QByteArray(text.data(), qsizetype(text.size()));
}

QByteArray marker(std::uint64_t cut) {
    return "\n[... " + QByteArray::number(quint64(cut)) + " bytes cut ...]\n";
}

// The cap's contract, computed the slow way from the whole input.
QByteArray reference(const QByteArray& all, std::size_t limit) {
    if (std::size_t(all.size()) <= limit)
        return all;
    const auto isContinuation = [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
    };
    QByteArray head = all.left(qsizetype(limit / 2));
    // Drop a character whose bytes continue past the head.
    for (qsizetype back = 1; back <= 3 && back <= head.size(); ++back) {
        const auto lead = static_cast<unsigned char>(head[head.size() - back]);
        if (isContinuation(char(lead)))
            continue;
        qsizetype length = 0;
        if (lead < 0x80)
            length = 1;
        else if (lead >= 0xC2 && lead <= 0xDF)
            length = 2;
        else if (lead >= 0xE0 && lead <= 0xEF)
            length = 3;
        else if (lead >= 0xF0 && lead <= 0xF4)
            length = 4;
        if (length > back)
            head.chop(back);
        break;
    }
    QByteArray tail = all.right(qsizetype(limit - limit / 2));
    qsizetype skip = 0;
    while (skip < 3 && skip < tail.size() && isContinuation(tail[skip]))
        ++skip;
    tail.remove(0, skip);
    return head + marker(std::uint64_t(all.size() - head.size() - tail.size())) + tail;
}

qint64 residentKib() {
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

} // namespace

class TestOutputCap : public QObject {
    Q_OBJECT

private slots:
    void keepsHeadAndTail_data() {
        QTest::addColumn<int>("limit");
        QTest::addColumn<QByteArrayList>("pieces");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("truncated");

        const QByteArray alphabet = "abcdefghijklmnopqrstuvwxyz";
        QByteArrayList letters;
        for (char c : alphabet)
            letters << QByteArray(1, c);

        QTest::newRow("nothing") << 10 << QByteArrayList{} << QByteArray() << false;
        QTest::newRow("under the limit") << 10 << QByteArrayList{"abc"} << QByteArray("abc") << false;
        QTest::newRow("exactly the limit")
            << 10 << QByteArrayList{"0123456789"} << QByteArray("0123456789") << false;
        QTest::newRow("exactly the limit in pieces")
            << 10 << QByteArrayList{"012", "3456", "789"} << QByteArray("0123456789") << false;
        QTest::newRow("one byte over")
            << 10 << QByteArrayList{"0123456789X"} << QByteArray("01234" + marker(1) + "6789X") << true;
        QTest::newRow("far over in one append")
            << 10 << QByteArrayList{alphabet} << QByteArray("abcde" + marker(16) + "vwxyz") << true;
        QTest::newRow("far over one byte at a time, the ring wraps")
            << 10 << letters << QByteArray("abcde" + marker(16) + "vwxyz") << true;
        QTest::newRow("pieces straddling head and tail")
            << 10 << QByteArrayList{"abc", "defgh", "ijklmnop", "qrstuvwxyz"}
            << QByteArray("abcde" + marker(16) + "vwxyz") << true;
        QTest::newRow("odd limit gives the tail the extra byte")
            << 7 << QByteArrayList{"abcdefghij"} << QByteArray("abc" + marker(3) + "ghij") << true;
        QTest::newRow("limit zero keeps only the marker")
            << 0 << QByteArrayList{"abc"} << QByteArray(marker(3)) << true;
        QTest::newRow("limit one keeps the last byte")
            << 1 << QByteArrayList{"abc"} << QByteArray(marker(2) + "c") << true;
        QTest::newRow("character straddling the head cut moves to the cut")
            << 10
            << QByteArrayList{"abcd\xC3\xA9"
                              "0123456789vwxyz"}
            << QByteArray("abcd" + marker(12) + "vwxyz") << true;
        QTest::newRow("character ending exactly at the head cut is kept")
            << 10
            << QByteArrayList{"abc\xC3\xA9"
                              "0123456789vwxyz"}
            << QByteArray("abc\xC3\xA9" + marker(10) + "vwxyz") << true;
        QTest::newRow("character straddling the tail cut moves to the cut")
            << 10 << QByteArrayList{"abcde0123456789\xC3\xA9wxyz"}
            << QByteArray("abcde" + marker(12) + "wxyz") << true;
        QTest::newRow("four-byte characters at both cuts")
            << 10 << QByteArrayList{"abc\xF0\x9F\x98\x80", "0123456789", "\xF0\x9F\x98\x80yz"}
            << QByteArray("abc" + marker(18) + "yz") << true;
        QTest::newRow("multi-byte characters under the limit are untouched")
            << 10 << QByteArrayList{"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"}
            << QByteArray("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9") << false;
        QTest::newRow("invalid bytes are cut like any others")
            << 4 << QByteArrayList{"\xFF\xFF\xFF\xFF\xFF"} << QByteArray("\xFF\xFF" + marker(1) + "\xFF\xFF")
            << true;
    }

    void keepsHeadAndTail() {
        QFETCH(int, limit);
        QFETCH(QByteArrayList, pieces);
        QFETCH(QByteArray, text);
        QFETCH(bool, truncated);

        OutputCap cap{std::size_t(limit)};
        std::uint64_t total = 0;
        for (const auto& piece : pieces) {
            cap.append(view(piece));
            total += std::uint64_t(piece.size());
        }
        QCOMPARE(bytes(cap.text()), text);
        QCOMPARE(cap.truncated(), truncated);
        QCOMPARE(cap.totalBytes(), total);
    }

    void randomAppendsMatchTheContract_data() {
        QTest::addColumn<int>("limit");
        for (int limit : {0, 1, 2, 3, 7, 16, 100, 1000})
            QTest::newRow(qPrintable(QString("limit %1").arg(limit))) << limit;
    }

    void randomAppendsMatchTheContract() {
        QFETCH(int, limit);
        // Mixed one- to four-byte characters, appended in random slices that ignore character boundaries.
        const QByteArray alphabet[] = {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\n"};
        QRandomGenerator random(quint32(limit) + 7);
        for (int round = 0; round < 50; ++round) {
            QByteArray all;
            const int characters = int(random.bounded(3 * limit + 10));
            for (int i = 0; i < characters; ++i)
                all += alphabet[random.bounded(5)];
            OutputCap cap{std::size_t(limit)};
            for (qsizetype at = 0; at < all.size();) {
                const qsizetype length = qMin<qsizetype>(all.size() - at, random.bounded(limit + 5) + 1);
                cap.append(view(all.mid(at, length)));
                at += length;
            }
            QCOMPARE(bytes(cap.text()), reference(all, std::size_t(limit)));
            QCOMPARE(cap.truncated(), all.size() > limit);
            QCOMPARE(cap.totalBytes(), std::uint64_t(all.size()));
            QVERIFY(cap.text().size() <= std::size_t(limit) + OutputCap::kMaxMarkerBytes);
        }
    }

    void hugeInputKeepsMemoryBounded() {
        const std::size_t limit = 16 * 1024;
        const std::string block(1 << 20, 'x');
        const std::uint64_t total = 512ull << 20; // 512 MiB: an unbounded buffer would show in the RSS
        OutputCap cap{limit};
        const qint64 before = residentKib();
        for (std::uint64_t appended = 0; appended < total; appended += block.size())
            cap.append(block);
        const qint64 after = residentKib();
        QCOMPARE(cap.totalBytes(), total);
        QVERIFY(cap.truncated());
        const std::string text = cap.text();
        QVERIFY(text.size() <= limit + OutputCap::kMaxMarkerBytes);
        QVERIFY(text.find("[... " + std::to_string(total - limit) + " bytes cut ...]") != std::string::npos);
        QVERIFY2(before > 0 && after - before < 64 * 1024,
                 qPrintable(QString("resident memory grew by %1 KiB").arg(after - before)));
    }
};

QTEST_GUILESS_MAIN(TestOutputCap)
#include "tst_output_cap.moc"
