#include "common/LinkChain.h"

#include <deque>
#include <vector>

namespace warren {

std::vector<std::string> splitPath(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = path.find('/', start);
        const auto end = slash == std::string::npos ? path.size() : slash;
        parts.push_back(path.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

namespace {

std::string join(const std::vector<std::string>& parts) {
    std::string path;
    for (std::size_t i = 0; i < parts.size(); ++i)
        path += (i ? "/" : "") + parts[i];
    return path;
}

} // namespace

LinkChain followLinkChain(const std::string& linkPath, const std::string& target,
                          const std::map<std::string, std::string>& links) {
    auto where = splitPath(linkPath);
    where.pop_back(); // resolution starts in the link's directory
    std::deque<std::string> left;
    for (auto& part : splitPath(target))
        left.push_back(std::move(part));
    int hops = 0;
    while (!left.empty()) {
        const std::string part = std::move(left.front());
        left.pop_front();
        if (part.empty() || part == ".")
            continue;
        if (part == "..") {
            if (where.empty())
                return LinkChain::LeavesTree;
            where.pop_back();
            continue;
        }
        where.push_back(part);
        const auto link = links.find(join(where));
        if (link == links.end())
            continue;
        if (++hops > kMaxLinkHops)
            return LinkChain::Loops;
        where.pop_back();
        const auto through = splitPath(link->second);
        left.insert(left.begin(), through.begin(), through.end());
    }
    return LinkChain::StaysInside;
}

bool linkStaysInside(std::string_view linkPath, std::string_view target) {
    if (target.empty() || target.front() == '/')
        return false;
    std::size_t depth = splitPath(std::string(linkPath)).size() - 1; // the link's directory
    for (const auto& part : splitPath(std::string(target))) {
        if (part == "..") {
            if (depth == 0)
                return false;
            --depth;
        } else if (!part.empty() && part != ".") {
            ++depth;
        }
    }
    return true;
}

std::map<std::string, LinkChain> linksLeavingTree(std::map<std::string, std::string> links) {
    std::map<std::string, LinkChain> leaving;
    for (;;) {
        std::map<std::string, LinkChain> found;
        for (const auto& [path, target] : links)
            if (const auto chain = followLinkChain(path, target, links); chain != LinkChain::StaysInside)
                found.emplace(path, chain);
        if (found.empty())
            return leaving;
        for (const auto& [path, chain] : found) {
            links.erase(path);
            leaving.emplace(path, chain);
        }
    }
}

} // namespace warren
