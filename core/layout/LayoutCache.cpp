// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/LayoutCache.h"

#include "core/support/FileIo.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace cleave {

namespace {

// Bumped whenever the layout settings or the drawn graph change what a layout looks like.
constexpr const char *cacheVersion = "v4";

} // namespace

LayoutCache::LayoutCache(std::string directory, std::size_t memoryEntries)
    : m_directory(std::move(directory))
    , m_capacity(std::max<std::size_t>(1, memoryEntries))
{
}

std::string LayoutCache::keyFor(const std::string &modelKey, const LayoutGraph &graph)
{
    char fingerprint[17];
    std::snprintf(fingerprint, sizeof fingerprint, "%016llx",
                  static_cast<unsigned long long>(graph.fingerprint()));
    return keyPrefixFor(modelKey, graph) + fingerprint;
}

std::string LayoutCache::keyPrefixFor(const std::string &modelKey, const LayoutGraph &graph)
{
    std::string safe;
    for (char c : modelKey.substr(0, 64))
        safe
            += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_') ? c : '_';
    return std::string(cacheVersion) + "-" + safe + "-f" + std::to_string(graph.function.value)
        + "-n" + std::to_string(graph.nodes.size()) + "-e" + std::to_string(graph.edges.size())
        + "-";
}

bool LayoutCache::holdsInMemory(const std::string &prefix)
{
    std::lock_guard lock(m_mutex);
    return std::any_of(m_recent.begin(), m_recent.end(),
                       [&](const std::string &key) { return key.starts_with(prefix); });
}

std::string LayoutCache::pathFor(const std::string &key) const
{
    if (m_directory.empty())
        return {};
    return (std::filesystem::path(m_directory) / (key + ".layout.bin")).string();
}

std::shared_ptr<const Layout> LayoutCache::findInMemory(const std::string &key)
{
    std::lock_guard lock(m_mutex);
    auto it = m_memory.find(key);
    if (it == m_memory.end())
        return nullptr;
    m_recent.remove(key);
    m_recent.push_front(key);
    return it->second;
}

std::shared_ptr<const Layout> LayoutCache::find(const std::string &key)
{
    if (std::shared_ptr<const Layout> hit = findInMemory(key))
        return hit;
    const std::string path = pathFor(key);
    if (path.empty())
        return nullptr;
    const std::optional<std::string> text = readFile(path);
    if (!text)
        return nullptr;
    auto layout = std::make_shared<Layout>();
    if (!layoutFromBinary(*text, *layout))
        return nullptr;
    std::shared_ptr<const Layout> result = layout;
    std::lock_guard lock(m_mutex);
    m_memory[key] = result;
    m_recent.remove(key);
    m_recent.push_front(key);
    while (m_recent.size() > m_capacity) {
        m_memory.erase(m_recent.back());
        m_recent.pop_back();
    }
    return result;
}

void LayoutCache::store(const std::string &key, const std::shared_ptr<const Layout> &layout)
{
    if (!layout)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_memory[key] = layout;
        m_recent.remove(key);
        m_recent.push_front(key);
        while (m_recent.size() > m_capacity) {
            m_memory.erase(m_recent.back());
            m_recent.pop_back();
        }
    }
    const std::string path = pathFor(key);
    if (path.empty())
        return;
    std::error_code ec;
    std::filesystem::create_directories(m_directory, ec);
    writeFileAtomically(path, layoutToBinary(*layout)); // a cache: a failed write is not an error
}

} // namespace cleave
