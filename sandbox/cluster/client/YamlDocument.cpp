#include "sandbox/cluster/client/YamlDocument.h"

#include <memory>
#include <string>
#include <vector>
#include <yaml.h>

namespace warren::kube {
namespace {

constexpr std::size_t kMaxDepth = 64;

struct Parser {
    yaml_parser_t parser{};
    Parser() { yaml_parser_initialize(&parser); }
    ~Parser() { yaml_parser_delete(&parser); }
    Parser(const Parser&) = delete;
    Parser& operator=(const Parser&) = delete;
};

struct Event {
    yaml_event_t event{};
    bool held = false;
    ~Event() {
        if (held)
            yaml_event_delete(&event);
    }
};

Error errorAt(std::size_t line, const std::string& what) {
    return makeError(ErrorCode::InvalidArgument, "YAML at line " + std::to_string(line + 1) + ": " + what);
}

// YAML 1.2's core schema for plain scalars: null, booleans, decimal integers.
nlohmann::json plainScalar(const std::string& text) {
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
        return nullptr;
    if (text == "true" || text == "True" || text == "TRUE")
        return true;
    if (text == "false" || text == "False" || text == "FALSE")
        return false;
    std::size_t start = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    if (start < text.size() && text.size() - start <= 18 &&
        text.find_first_not_of("0123456789", start) == std::string::npos) {
        const long long value = std::stoll(text);
        return value;
    }
    return text;
}

class Builder {
public:
    explicit Builder(yaml_parser_t& parser) : m_parser(parser) {}

    Result<nlohmann::json> document() {
        for (;;) {
            auto event = next();
            if (!event)
                return event.error();
            switch ((*event)->event.type) {
            case YAML_STREAM_START_EVENT:
            case YAML_DOCUMENT_START_EVENT:
                continue;
            case YAML_STREAM_END_EVENT:
                return nlohmann::json(nullptr);
            default:
                return node(**event, 0);
            }
        }
    }

private:
    Result<std::unique_ptr<Event>> next() {
        auto event = std::make_unique<Event>();
        if (!yaml_parser_parse(&m_parser, &event->event)) {
            const std::string problem = m_parser.problem ? m_parser.problem : "cannot be parsed";
            return errorAt(m_parser.problem_mark.line, problem);
        }
        event->held = true;
        return event;
    }

    Result<nlohmann::json> node(const Event& event, std::size_t depth) {
        const yaml_event_t& e = event.event;
        const std::size_t line = e.start_mark.line;
        if (depth > kMaxDepth)
            return errorAt(line, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        switch (e.type) {
        case YAML_ALIAS_EVENT:
            return errorAt(line, "aliases (*name) are not accepted");
        case YAML_SCALAR_EVENT: {
            if (e.data.scalar.anchor)
                return errorAt(line, "anchors (&name) are not accepted");
            std::string text(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
            if (e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !e.data.scalar.tag)
                return plainScalar(text);
            return nlohmann::json(std::move(text));
        }
        case YAML_SEQUENCE_START_EVENT: {
            if (e.data.sequence_start.anchor)
                return errorAt(line, "anchors (&name) are not accepted");
            nlohmann::json array = nlohmann::json::array();
            for (;;) {
                auto item = next();
                if (!item)
                    return item.error();
                if ((*item)->event.type == YAML_SEQUENCE_END_EVENT)
                    return array;
                auto value = node(**item, depth + 1);
                if (!value)
                    return value.error();
                array.push_back(std::move(*value));
            }
        }
        case YAML_MAPPING_START_EVENT: {
            if (e.data.mapping_start.anchor)
                return errorAt(line, "anchors (&name) are not accepted");
            nlohmann::json object = nlohmann::json::object();
            for (;;) {
                auto keyEvent = next();
                if (!keyEvent)
                    return keyEvent.error();
                if ((*keyEvent)->event.type == YAML_MAPPING_END_EVENT)
                    return object;
                const yaml_event_t& k = (*keyEvent)->event;
                if (k.type != YAML_SCALAR_EVENT)
                    return errorAt(k.start_mark.line, "a mapping key must be a plain string");
                std::string key(reinterpret_cast<const char*>(k.data.scalar.value), k.data.scalar.length);
                if (object.contains(key))
                    return errorAt(k.start_mark.line, "key \"" + key + "\" appears twice in one mapping");
                auto valueEvent = next();
                if (!valueEvent)
                    return valueEvent.error();
                auto value = node(**valueEvent, depth + 1);
                if (!value)
                    return value.error();
                object[key] = std::move(*value);
            }
        }
        default:
            return errorAt(line, "unexpected structure");
        }
    }

    yaml_parser_t& m_parser;
};

} // namespace

Result<nlohmann::json> parseYaml(std::string_view text) {
    Parser parser;
    yaml_parser_set_input_string(&parser.parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    return Builder(parser.parser).document();
}

} // namespace warren::kube
