// ChunkedDecoder: a chunked body as it arrives (a watch's events from the Kubernetes API, a remote MCP
// server's answers), split at every byte; extensions and trailers dropped; what is not a chunked body, and
// more than its cap, refused.
#include "common/http/ChunkedDecoder.h"

#include <QtTest>

using namespace warren;

class TestChunkedDecoder : public QObject {
    Q_OBJECT

private slots:
    void decodesAtEverySplit() {
        const std::string wire = "17\r\n{\"type\":\"ADDED\",\"a\":1}\n\r\n4;ext=1\r\nabcd\r\n0\r\nTrailer: x\r\n\r\nnext";
        ChunkedDecoder decoder(1024, 1024);
        std::string output;
        std::size_t used = 0;
        for (std::size_t at = 0; at < wire.size(); ++at) // one byte at a time
            used += decoder.feed(std::string_view(wire).substr(at, 1), output);
        QVERIFY(decoder.complete());
        QCOMPARE(output, std::string("{\"type\":\"ADDED\",\"a\":1}\nabcd"));
        QCOMPARE(used, wire.size() - 4); // what follows the body is not taken
        QCOMPARE(decoder.decoded(), std::uint64_t(output.size()));
    }

    void refusesWhatIsNotChunked_data() {
        QTest::addColumn<QByteArray>("wire");
        QTest::addColumn<bool>("tooLarge");
        QTest::newRow("not hexadecimal") << QByteArray("zz\r\n") << false;
        QTest::newRow("size lies") << QByteArray("2\r\nabc\r\n") << false;
        QTest::newRow("bare LF") << QByteArray("2\nab\r\n") << false;
        QTest::newRow("over the cap in one chunk") << QByteArray("401\r\n") << true;
        QTest::newRow("over the cap in many") << QByteArray("200\r\n" + QByteArray(512, 'a') + "\r\n201\r\n") << true;
        QTest::newRow("a size without end") << QByteArray(5000, '1') << false;
    }

    void refusesWhatIsNotChunked() {
        QFETCH(QByteArray, wire);
        ChunkedDecoder decoder(1024, 1024);
        std::string output;
        decoder.feed(wire.toStdString(), output);
        QVERIFY(decoder.refused());
        QTEST(decoder.tooLarge(), "tooLarge");
        QVERIFY(!decoder.error().empty());
        QCOMPARE(decoder.feed("0\r\n\r\n", output), std::size_t(0)); // nothing more once refused
    }
};

QTEST_APPLESS_MAIN(TestChunkedDecoder)
#include "tst_chunked_decoder.moc"
