// UTF-8 as every part walks it: strict validation (RFC 3629), one character decoded, repair with U+FFFD,
// and cuts that never split a character (a prefix within a limit, an incomplete tail, the continuation
// bytes at a start).

#include "common/Utf8.h"

#include <QtTest>

using namespace warren;

namespace {

std::string_view view(const QByteArray& bytes) {
    return std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

QByteArray bytesOf(std::string_view text) {
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace

class TestUtf8 : public QObject {
    Q_OBJECT

private slots:
    void utf8Validation_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("firstInvalid"); // -1: valid

        QTest::newRow("ascii") << QByteArray("hello") << -1;
        QTest::newRow("two byte min U+0080") << QByteArray("\xc2\x80") << -1;
        QTest::newRow("three byte min U+0800") << QByteArray("\xe0\xa0\x80") << -1;
        QTest::newRow("last before surrogates U+D7FF") << QByteArray("\xed\x9f\xbf") << -1;
        QTest::newRow("first after surrogates U+E000") << QByteArray("\xee\x80\x80") << -1;
        QTest::newRow("four byte min U+10000") << QByteArray("\xf0\x90\x80\x80") << -1;
        QTest::newRow("max U+10FFFF") << QByteArray("\xf4\x8f\xbf\xbf") << -1;
        QTest::newRow("overlong nul C0 80") << QByteArray("\xc0\x80") << 0;
        QTest::newRow("overlong C1") << QByteArray("x\xc1\xbf") << 1;
        QTest::newRow("overlong E0 9F") << QByteArray("\xe0\x9f\xbf") << 0;
        QTest::newRow("overlong F0 8F") << QByteArray("\xf0\x8f\xbf\xbf") << 0;
        QTest::newRow("high surrogate") << QByteArray("\xed\xa0\x80") << 0;
        QTest::newRow("low surrogate") << QByteArray("ok\xed\xbf\xbf") << 2;
        QTest::newRow("F5 lead") << QByteArray("\xf5\x80\x80\x80") << 0;
        QTest::newRow("FF byte") << QByteArray("\xff") << 0;
        QTest::newRow("truncated two byte at end") << QByteArray("ab\xc3") << 2;
        QTest::newRow("truncated four byte at end") << QByteArray("\xf0\x9f\x90") << 0;
        QTest::newRow("bad continuation") << QByteArray("\xe2\x28\xa1") << 0;
    }

    void utf8Validation() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, firstInvalid);
        const auto result = firstInvalidUtf8(view(bytes));
        if (firstInvalid < 0)
            QVERIFY(!result.has_value());
        else
            QCOMPARE(result, std::optional<std::size_t>(static_cast<std::size_t>(firstInvalid)));
    }

    void utf8CharAt_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("at");
        QTest::addColumn<int>("codePoint"); // -1: no valid character starts there
        QTest::addColumn<int>("length");

        QTest::newRow("ascii") << QByteArray("ab") << 1 << 0x62 << 1;
        QTest::newRow("two byte e acute") << QByteArray("\xc3\xa9") << 0 << 0xE9 << 2;
        QTest::newRow("three byte euro") << QByteArray("x\xe2\x82\xac") << 1 << 0x20AC << 3;
        QTest::newRow("bidi override U+202E") << QByteArray("\xe2\x80\xae") << 0 << 0x202E << 3;
        QTest::newRow("four byte max U+10FFFF") << QByteArray("\xf4\x8f\xbf\xbf") << 0 << 0x10FFFF << 4;
        QTest::newRow("continuation byte") << QByteArray("\xc3\xa9") << 1 << -1 << 0;
        QTest::newRow("overlong C0 80") << QByteArray("\xc0\x80") << 0 << -1 << 0;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << 0 << -1 << 0;
        QTest::newRow("past U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << 0 << -1 << 0;
        QTest::newRow("cut short by the end") << QByteArray("a\xe2\x82") << 1 << -1 << 0;
    }

    void utf8CharAt() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, at);
        QFETCH(int, codePoint);
        QFETCH(int, length);
        const auto character = warren::utf8CharAt(view(bytes), static_cast<std::size_t>(at));
        if (codePoint < 0) {
            QVERIFY(!character.has_value());
            return;
        }
        QVERIFY(character.has_value());
        QCOMPARE(static_cast<int>(character->codePoint), codePoint);
        QCOMPARE(character->length, static_cast<std::size_t>(length));
    }

    void validUtf8Replaces_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("valid");

        QTest::newRow("valid text is unchanged") << QByteArray("caf\xc3\xa9") << QByteArray("caf\xc3\xa9");
        QTest::newRow("each invalid byte becomes U+FFFD") << QByteArray("a\xff\xfe"
                                                                        "b")
                                                          << QByteArray("a\xef\xbf\xbd\xef\xbf\xbd"
                                                                        "b");
        QTest::newRow("truncated sequence at the end")
            << QByteArray("x\xe2\x82") << QByteArray("x\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80")
                                   << QByteArray("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("empty") << QByteArray() << QByteArray();
    }

    void validUtf8Replaces() {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, valid);
        const std::string repaired = validUtf8(view(bytes));
        QCOMPARE(bytesOf(repaired), valid);
        QVERIFY(!firstInvalidUtf8(repaired));
    }

    void utf8PrefixCutsOnBoundaries_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QByteArray>("prefix");

        QTest::newRow("shorter than the limit") << QByteArray("abc") << 5 << QByteArray("abc");
        QTest::newRow("exactly the limit") << QByteArray("abc") << 3 << QByteArray("abc");
        QTest::newRow("ascii cut") << QByteArray("abcdef") << 4 << QByteArray("abcd");
        QTest::newRow("inside a two-byte character") << QByteArray("a\xc3\xa9") << 2 << QByteArray("a");
        QTest::newRow("after a two-byte character")
            << QByteArray("a\xc3\xa9z") << 3 << QByteArray("a\xc3\xa9");
        QTest::newRow("inside a four-byte character") << QByteArray("\xf0\x9f\x98\x80!") << 3 << QByteArray();
        QTest::newRow("limit zero") << QByteArray("abc") << 0 << QByteArray();
        QTest::newRow("a run of continuation bytes backs up at most 3")
            << QByteArray("a\x80\x80\x80\x80\x80") << 5 << QByteArray("a\x80");
    }

    void utf8PrefixCutsOnBoundaries() {
        QFETCH(QByteArray, text);
        QFETCH(int, limit);
        QFETCH(QByteArray, prefix);
        QCOMPARE(bytesOf(utf8Prefix(view(text), static_cast<std::size_t>(limit))), prefix);
    }

    void incompleteSuffixAndContinuationPrefix_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("incompleteSuffix");
        QTest::addColumn<int>("continuationPrefix");

        QTest::newRow("ascii") << QByteArray("abc") << 0 << 0;
        QTest::newRow("complete character at the end") << QByteArray("a\xc3\xa9") << 0 << 0;
        QTest::newRow("lead byte at the end") << QByteArray("a\xc3") << 1 << 0;
        QTest::newRow("three of four bytes") << QByteArray("\xf0\x9f\x98") << 3 << 0;
        QTest::newRow("invalid lead is not incomplete") << QByteArray("a\xff") << 0 << 0;
        QTest::newRow("C0 is never a lead") << QByteArray("a\xc0") << 0 << 0;
        QTest::newRow("the rest of a character") << QByteArray("\xa9z") << 0 << 1;
        QTest::newRow("at most 3 continuation bytes") << QByteArray("\x80\x80\x80\x80") << 0 << 3;
        QTest::newRow("empty") << QByteArray() << 0 << 0;
    }

    void incompleteSuffixAndContinuationPrefix() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, incompleteSuffix);
        QFETCH(int, continuationPrefix);
        QCOMPARE(incompleteUtf8Suffix(view(bytes)), static_cast<std::size_t>(incompleteSuffix));
        QCOMPARE(utf8ContinuationPrefix(view(bytes)), static_cast<std::size_t>(continuationPrefix));
    }
};

QTEST_GUILESS_MAIN(TestUtf8)
#include "tst_utf8.moc"
