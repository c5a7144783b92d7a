#include "app/snapshots/SnapshotMeta.h"

#include <nlohmann/json.hpp>

namespace warren::snapshots {

using json = nlohmann::json;

const char* kindName(SnapshotMeta::Kind kind) {
    switch (kind) {
    case SnapshotMeta::Kind::Step:
        return "step";
    case SnapshotMeta::Kind::End:
        return "end";
    case SnapshotMeta::Kind::Undo:
        return "undo";
    case SnapshotMeta::Kind::Present:
        return "present";
    }
    return "step";
}

std::string toCommitMessage(const SnapshotMeta& meta) {
    std::string title;
    switch (meta.kind) {
    case SnapshotMeta::Kind::Step:
        title = "before step " + std::to_string(meta.step);
        break;
    case SnapshotMeta::Kind::End:
        title = "after the last step (" + std::to_string(meta.step - 1) + ")";
        break;
    case SnapshotMeta::Kind::Undo:
        title = "before a rewind";
        break;
    case SnapshotMeta::Kind::Present:
        title = "the workspace now";
        break;
    }
    const json body = {{"kind", kindName(meta.kind)},        {"step", meta.step},
                       {"taken_at_ms", meta.takenAtMs},      {"empty_dirs", meta.emptyDirs},
                       {"skipped_large", meta.skippedLarge}, {"skipped_dirs", meta.skippedDirs}};
    return "warren: " + title + "\n\n" + body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<SnapshotMeta> fromCommitMessage(std::string_view message) {
    const auto blank = message.find("\n\n");
    const auto damaged = [&](const std::string& why) {
        return makeError(ErrorCode::System, "a snapshot's description is damaged (" + why + ")");
    };
    if (blank == std::string_view::npos)
        return damaged("no body");
    const json body = json::parse(message.substr(blank + 2), nullptr, false);
    if (!body.is_object())
        return damaged("not JSON");
    SnapshotMeta meta;
    try {
        const std::string kind = body.at("kind").get<std::string>();
        if (kind == "step")
            meta.kind = SnapshotMeta::Kind::Step;
        else if (kind == "end")
            meta.kind = SnapshotMeta::Kind::End;
        else if (kind == "undo")
            meta.kind = SnapshotMeta::Kind::Undo;
        else if (kind == "present")
            meta.kind = SnapshotMeta::Kind::Present;
        else
            return damaged("kind \"" + kind + "\"");
        meta.step = body.at("step").get<std::uint64_t>();
        meta.takenAtMs = body.at("taken_at_ms").get<std::int64_t>();
        meta.emptyDirs = body.at("empty_dirs").get<std::vector<std::string>>();
        meta.skippedLarge = body.at("skipped_large").get<std::vector<std::string>>();
        meta.skippedDirs = body.at("skipped_dirs").get<std::vector<std::string>>();
    } catch (const json::exception& e) {
        return damaged(e.what());
    }
    return meta;
}

} // namespace warren::snapshots
