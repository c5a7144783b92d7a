#include "app/control/HostSecretIndex.h"

#include "app/store/Store.h"

#include <algorithm>

namespace warren::control {

namespace {

constexpr const char* kIndex = "secrets.hosts";

Status save(Store& store, std::vector<wire::HostSecretEntry> entries) {
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return store.setSetting(kIndex, wire::HostSecretList{std::move(entries)}.toJson().dump());
}

} // namespace

Result<std::vector<wire::HostSecretEntry>> loadHostSecretIndex(Store& store) {
    auto stored = store.setting(kIndex);
    if (!stored)
        return stored.error();
    if (!*stored)
        return std::vector<wire::HostSecretEntry>{};
    return wire::HostSecretList::fromJson(nlohmann::json::parse(**stored, nullptr, false)).secrets;
}

Status putHostSecretEntry(Store& store, const wire::HostSecretEntry& entry) {
    auto entries = loadHostSecretIndex(store);
    if (!entries)
        return entries.error();
    std::erase_if(*entries, [&](const wire::HostSecretEntry& kept) { return kept.name == entry.name; });
    entries->push_back(entry);
    return save(store, std::move(*entries));
}

Status removeHostSecretEntry(Store& store, const std::string& name) {
    auto entries = loadHostSecretIndex(store);
    if (!entries)
        return entries.error();
    if (std::erase_if(*entries, [&](const wire::HostSecretEntry& kept) { return kept.name == name; }) == 0)
        return Ok{};
    return save(store, std::move(*entries));
}

} // namespace warren::control
