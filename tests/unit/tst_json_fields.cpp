// The strict JSON reader every part shares: the parse refuses what would overflow the stack and names
// where it failed; each getter names the path and the key, says what it wanted and what it got.

#include "common/JsonFields.h"

#include <QtTest>

using namespace warren;
using namespace warren::json_fields;
using nlohmann::json;

namespace {

QString messageOf(const Error& error) {
    return QString::fromStdString(error.message);
}

// "ok:<dump>" or "error:<message>".
template <typename T> QString describe(const Result<T>& result) {
    if (!result)
        return "error:" + messageOf(result.error());
    return "ok:" + QString::fromStdString(json(result.value()).dump());
}

template <typename T> QString describe(const Result<std::optional<T>>& result) {
    if (!result)
        return "error:" + messageOf(result.error());
    return "ok:" + QString::fromStdString(result.value() ? json(*result.value()).dump() : "null");
}

QString describe(const Status& status) {
    return status ? QString("ok") : "error:" + messageOf(status.error());
}

} // namespace

class TestJsonFields : public QObject {
    Q_OBJECT

private slots:
    void parseJson_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("outcome");

        QTest::newRow("object") << R"({"a": 1})"
                                << R"(ok:{"a":1})";
        QTest::newRow("syntax error names the place")
            << R"({"a": })"
            << "error:parse error at line 1, column 7: syntax error while parsing value - "
               "unexpected '}'; expected '[', '{', or a literal";
        QTest::newRow("128 levels are accepted")
            << QString(128, '[') + QString(128, ']') << "ok:" + QString(128, '[') + QString(128, ']');
        QTest::newRow("129 levels are refused") << QString(129, '[') + QString(129, ']')
                                                << "error:nesting deeper than 128 levels is not accepted";
        QTest::newRow("brackets inside strings do not count") << "[\"" + QString(200, '[') + "\"]"
                                                              << "ok:[\"" + QString(200, '[') + "\"]";
    }

    void parseJson() {
        QFETCH(QString, text);
        QFETCH(QString, outcome);
        QCOMPARE(describe(json_fields::parseJson(text.toStdString())), outcome);
    }

    void parseJsonDuplicateKeys_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("reject");
        QTest::addColumn<QString>("outcome");

        QTest::newRow("kept last by default") << R"({"a": 1, "a": 2})" << false << R"(ok:{"a":2})";
        QTest::newRow("refused when asked")
            << R"({"a": 1, "a": 2})" << true << R"(error:key "a" appears twice in one object)";
        QTest::newRow("nested object")
            << R"({"a": {"b": 1, "b": 1}})" << true << R"(error:key "b" appears twice in one object)";
        QTest::newRow("same key in sibling objects")
            << R"([{"a": 1}, {"a": 2}])" << true << R"(ok:[{"a":1},{"a":2}])";
        QTest::newRow("syntax error still named")
            << R"({"a": })" << true
            << "error:parse error at line 1, column 7: syntax error while "
               "parsing value - unexpected '}'; expected '[', '{', or a "
               "literal";
    }

    void parseJsonDuplicateKeys() {
        QFETCH(QString, text);
        QFETCH(bool, reject);
        QFETCH(QString, outcome);
        QCOMPARE(describe(json_fields::parseJson(text.toStdString(), {.rejectDuplicateKeys = reject})),
                 outcome);
    }

    void getInt_data() {
        QTest::addColumn<QString>("object");
        QTest::addColumn<QString>("outcome");

        QTest::newRow("lowest") << R"({"k": -5})"
                                << "ok:-5";
        QTest::newRow("highest") << R"({"k": 5})"
                                 << "ok:5";
        QTest::newRow("below") << R"({"k": -6})"
                               << "error:doc.k: must be a whole number from -5 to 5, got the integer -6";
        QTest::newRow("above") << R"({"k": 6})"
                               << "error:doc.k: must be a whole number from -5 to 5, got the integer 6";
        QTest::newRow("beyond 64 bits signed")
            << R"({"k": 18446744073709551615})"
            << "error:doc.k: must be a whole number from -5 to 5, got the integer 18446744073709551615";
        QTest::newRow("fraction") << R"({"k": 1.5})"
                                  << "error:doc.k: must be a whole number from -5 to 5, got the number 1.5";
        QTest::newRow("string") << R"({"k": "1"})"
                                << "error:doc.k: must be a whole number from -5 to 5, got a string";
        QTest::newRow("true") << R"({"k": true})"
                              << "error:doc.k: must be a whole number from -5 to 5, got true";
        QTest::newRow("missing") << R"({})"
                                 << "error:doc.k: missing";
    }

    void getInt() {
        QFETCH(QString, object);
        QFETCH(QString, outcome);
        QCOMPARE(describe(json_fields::getInt(json::parse(object.toStdString()), "k", "doc", -5, 5)),
                 outcome);
    }

    void getIntFromANativeValue() {
        // A value built in C++ from an int is signed even when it is not negative.
        QCOMPARE(describe(json_fields::getInt(json{{"k", 3}}, "k", "doc", 1, 4)), QString("ok:3"));
        QCOMPARE(describe(json_fields::getInt(json{{"k", 3u}}, "k", "doc", 4, 9)),
                 QString("error:doc.k: must be a whole number from 4 to 9, got the integer 3"));
    }

    void asUint_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("outcome"); // the number, or "none"

        QTest::newRow("zero") << "0"
                              << "0";
        QTest::newRow("largest unsigned") << "18446744073709551615"
                                          << "18446744073709551615";
        QTest::newRow("negative") << "-1"
                                  << "none";
        QTest::newRow("fraction") << "1.5"
                                  << "none";
        QTest::newRow("whole fraction") << "2.0"
                                        << "none";
        QTest::newRow("string of a number") << "\"3\""
                                            << "none";
        QTest::newRow("true") << "true"
                              << "none";
        QTest::newRow("null") << "null"
                              << "none";
    }

    void asUint() {
        QFETCH(QString, value);
        QFETCH(QString, outcome);
        const auto number = json_fields::asUint(json::parse(value.toStdString()));
        QCOMPARE(number ? QString::number(*number) : QString("none"), outcome);
    }

    void asUintOfANativeValue() {
        // Built in C++ from an int: signed, and still a non-negative integer.
        QCOMPARE(json_fields::asUint(json(3)), std::optional<std::uint64_t>(3));
        QCOMPARE(json_fields::asUint(json(-3)), std::optional<std::uint64_t>());
    }

    void describeJson_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("description");

        QTest::newRow("null") << "null"
                              << "null";
        QTest::newRow("object") << "{}"
                                << "an object";
        QTest::newRow("array") << "[]"
                               << "an array";
        QTest::newRow("string") << "\"x\""
                                << "a string";
        QTest::newRow("true") << "true"
                              << "true";
        QTest::newRow("negative integer") << "-3"
                                          << "the integer -3";
        QTest::newRow("unsigned integer") << "7"
                                          << "the integer 7";
        QTest::newRow("fraction") << "1.5"
                                  << "the number 1.5";
    }

    void describeJson() {
        QFETCH(QString, value);
        QFETCH(QString, description);
        QCOMPARE(QString::fromStdString(json_fields::describeJson(json::parse(value.toStdString()))),
                 description);
    }

    void getters_data() {
        QTest::addColumn<QString>("getter");
        QTest::addColumn<QString>("object");
        QTest::addColumn<QString>("outcome");

        QTest::newRow("string") << "string"
                                << R"({"k": "v"})"
                                << R"(ok:"v")";
        QTest::newRow("string missing") << "string"
                                        << "{}"
                                        << "error:doc.k: missing";
        QTest::newRow("string of a number") << "string"
                                            << R"({"k": 1})"
                                            << "error:doc.k: must be a string, got the integer 1";
        QTest::newRow("uint") << "uint"
                              << R"({"k": 4})"
                              << "ok:4";
        QTest::newRow("uint negative") << "uint"
                                       << R"({"k": -4})"
                                       << "error:doc.k: must be a non-negative integer, got the integer -4";
        QTest::newRow("uint fraction") << "uint"
                                       << R"({"k": 1.5})"
                                       << "error:doc.k: must be a non-negative integer, got the number 1.5";
        QTest::newRow("bool") << "bool"
                              << R"({"k": false})"
                              << "ok:false";
        QTest::newRow("bool of a string") << "bool"
                                          << R"({"k": "no"})"
                                          << "error:doc.k: must be true or false, got a string";
        QTest::newRow("value of any type") << "value"
                                           << R"({"k": [1]})"
                                           << "ok:[1]";
        QTest::newRow("value missing") << "value"
                                       << "{}"
                                       << "error:doc.k: missing";
        QTest::newRow("object") << "object"
                                << R"({"k": {"a": 1}})"
                                << R"(ok:{"a":1})";
        QTest::newRow("object of an array") << "object"
                                            << R"({"k": []})"
                                            << "error:doc.k: must be an object, got an array";
        QTest::newRow("string array") << "strings"
                                      << R"({"k": ["a", "b"]})"
                                      << R"(ok:["a","b"])";
        QTest::newRow("string array absent is empty") << "strings"
                                                      << "{}"
                                                      << "ok:[]";
        QTest::newRow("string array element") << "strings"
                                              << R"({"k": ["a", 2]})"
                                              << "error:doc.k[1]: must be a string, got the integer 2";
        QTest::newRow("string array of an object") << "strings"
                                                   << R"({"k": {}})"
                                                   << "error:doc.k: must be an array, got an object";
        QTest::newRow("optional string absent") << "optional string"
                                                << "{}"
                                                << "ok:null";
        QTest::newRow("optional string of null") << "optional string"
                                                 << R"({"k": null})"
                                                 << "error:doc.k: must be a string, got null";
        QTest::newRow("optional uint") << "optional uint"
                                       << R"({"k": 9})"
                                       << "ok:9";
        QTest::newRow("optional int absent") << "optional int"
                                             << "{}"
                                             << "ok:null";
        QTest::newRow("optional int in range") << "optional int"
                                               << R"({"k": 4294967295})"
                                               << "ok:4294967295";
        QTest::newRow("optional int above")
            << "optional int"
            << R"({"k": 4294967296})"
            << "error:doc.k: must be a whole number from 0 to 4294967295, got "
               "the integer 4294967296";
        QTest::newRow("optional int of null")
            << "optional int"
            << R"({"k": null})"
            << "error:doc.k: must be a whole number from 0 to 4294967295, got "
               "null";
    }

    void getters() {
        QFETCH(QString, getter);
        QFETCH(QString, object);
        QFETCH(QString, outcome);
        const json value = json::parse(object.toStdString());
        const std::string where = "doc";
        QString got;
        if (getter == "string")
            got = describe(getString(value, "k", where));
        else if (getter == "uint")
            got = describe(getUint(value, "k", where));
        else if (getter == "bool")
            got = describe(getBool(value, "k", where));
        else if (getter == "value")
            got = describe(getValue(value, "k", where));
        else if (getter == "object")
            got = describe(getObject(value, "k", where));
        else if (getter == "strings")
            got = describe(getStringArray(value, "k", where, false));
        else if (getter == "optional string")
            got = describe(getOptionalString(value, "k", where));
        else if (getter == "optional uint")
            got = describe(getOptionalUint(value, "k", where));
        else if (getter == "optional int")
            got = describe(getOptionalInt(value, "k", where, 0, UINT32_MAX));
        QCOMPARE(got, outcome);
    }

    // takeIfPresent fills a field over its default: absent keeps the default, present replaces it, an
    // error is handed on and leaves the field alone.
    void takeIfPresentKeepsTheDefault_data() {
        QTest::addColumn<QString>("object");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<uint>("field");
        QTest::addColumn<QString>("message");

        QTest::newRow("absent keeps the default") << "{}" << true << 1000u << "";
        QTest::newRow("present replaces it") << R"({"uid": 7})" << true << 7u << "";
        QTest::newRow("wrong type is the error")
            << R"({"uid": "7"})" << false << 1000u
            << "user.uid: must be a whole number from 0 to 4294967295, got a string";
    }

    void takeIfPresentKeepsTheDefault() {
        QFETCH(QString, object);
        QFETCH(bool, ok);
        QFETCH(uint, field);
        QFETCH(QString, message);
        std::uint32_t uid = 1000;
        Error error;
        const bool taken = takeIfPresent(
            getOptionalInt(json::parse(object.toStdString()), "uid", "user", 0, UINT32_MAX), uid, error);
        QCOMPARE(taken, ok);
        QCOMPARE(static_cast<uint>(uid), field);
        QCOMPARE(messageOf(error), message);
    }

    void checkKeysNamesTheFirstUnknown_data() {
        QTest::addColumn<QString>("object");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("outcome");

        QTest::newRow("all known") << R"({"a": 1, "b": 2})"
                                   << "doc"
                                   << "ok";
        QTest::newRow("unknown key") << R"({"a": 1, "c": 2})"
                                     << "doc"
                                     << "error:doc: unknown key \"c\"";
        QTest::newRow("at the top") << R"({"c": 2})"
                                    << ""
                                    << "error:unknown key \"c\"";
        QTest::newRow("listing the known keys") << R"({"c": 2})"
                                                << "list"
                                                << "error:list: unknown key \"c\" (known: a, b)";
    }

    void checkKeysNamesTheFirstUnknown() {
        QFETCH(QString, object);
        QFETCH(QString, where);
        QFETCH(QString, outcome);
        const ListKnown list = where == "list" ? ListKnown::Yes : ListKnown::No;
        QCOMPARE(
            describe(checkKeys(json::parse(object.toStdString()), {"a", "b"}, where.toStdString(), list)),
            outcome);
        const auto unknown = findUnknownKey(json::parse(object.toStdString()), {"a", "b"});
        QCOMPARE(unknown.has_value(), outcome != "ok");
        if (unknown)
            QCOMPARE(QString::fromStdString(*unknown), QString("c"));
    }

    void requireObjectAndJoinPath() {
        QCOMPARE(describe(requireObject(json::array(), "doc")),
                 QString("error:doc: must be an object, got an array"));
        QCOMPARE(describe(requireObject(json::object(), "doc")), QString("ok"));
        QCOMPARE(QString::fromStdString(joinPath("", "k")), QString("k"));
        QCOMPARE(QString::fromStdString(joinPath("a.b", "k")), QString("a.b.k"));
    }
};

QTEST_GUILESS_MAIN(TestJsonFields)
#include "tst_json_fields.moc"
