// KeyMask: the real key never passes back to the sandbox, however the network cuts the stream that holds it,
// and a stream that does not hold it passes unchanged and undelayed.

#include "app/modelproxy/KeyMask.h"

#include <QtTest>

using namespace warren::control;

namespace {

const std::string kKey = "sk-ant-api03-SECRET";

// text fed in pieces of size chunk, then finished.
std::string throughMask(const std::string& text, std::size_t chunk, const std::string& key = kKey) {
    KeyMask mask(key);
    std::string out;
    for (std::size_t at = 0; at < text.size(); at += chunk)
        out += mask.feed(std::string_view(text).substr(at, chunk));
    return out + mask.finish();
}

} // namespace

class TestKeyMask : public QObject {
    Q_OBJECT

private slots:
    void theKeyIsReplacedWhereverItIsCut_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString key = QString::fromStdString(kKey);
        QTest::newRow("none") << "data: {\"a\":1}\n\n" << "data: {\"a\":1}\n\n";
        QTest::newRow("whole") << key << "[the API key]";
        QTest::newRow("echoed in an error") << "{\"message\":\"bad key " + key + "\"}"
                                            << "{\"message\":\"bad key [the API key]\"}";
        QTest::newRow("twice, touching") << key + key << "[the API key][the API key]";
        QTest::newRow("a prefix only, at the end") << "x sk-ant-api03-SEC" << "x sk-ant-api03-SEC";
        QTest::newRow("a prefix, then the key") << "sk-ant-" + key << "sk-ant-[the API key]";
        QTest::newRow("empty") << "" << "";
    }
    void theKeyIsReplacedWhereverItIsCut() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        for (std::size_t chunk = 1; chunk <= std::size_t(text.size()) + 1; ++chunk)
            QCOMPARE(QString::fromStdString(throughMask(text.toStdString(), chunk)), expected);
    }

    // Nothing is held back unless it could be the key's start: an SSE event goes out whole at once.
    void aStreamWithoutTheKeyIsNotDelayed() {
        KeyMask mask(kKey);
        const std::string event = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
        QCOMPARE(mask.feed(event), event);
        QCOMPARE(mask.feed("data: s"), std::string("data: ")); // "s" may begin the key
        QCOMPARE(mask.feed("ure\n\n"), std::string("sure\n\n"));
        QCOMPARE(mask.finish(), std::string());
    }

    void anEmptyKeyMasksNothing() {
        QCOMPARE(QString::fromStdString(throughMask("anything", 3, "")), QString("anything"));
        QCOMPARE(QString::fromStdString(KeyMask::masked("anything", "")), QString("anything"));
    }
};

QTEST_GUILESS_MAIN(TestKeyMask)
#include "tst_key_mask.moc"
