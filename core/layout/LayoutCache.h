// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/layout/Layout.h"
#include "core/layout/LayoutGraph.h"

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cleave {

/// Layouts already computed, in memory (the most recent few) and on disk (one binary file per
/// layout, layoutToBinary() in a directory the caller chooses; the editor passes its cache
/// location), so that reopening a model is instant. Entries are keyed by the model's cache key (its
/// checksum), the function, and the drawn graph's fingerprint (so a changed drawing never reuses a
/// stale layout). Thread-safe.
class LayoutCache
{
public:
    /// A cache writing to `directory` (created on first store); empty keeps it in memory only.
    explicit LayoutCache(std::string directory = {}, std::size_t memoryEntries = 8);

    /// The full key of a layout of `graph` for the model `modelKey`.
    [[nodiscard]] static std::string keyFor(const std::string &modelKey, const LayoutGraph &graph);
    /// The start of keyFor() made without a pass over the graph (model, function, node and edge
    /// counts): what holdsInMemory() checks before a full key is worth computing.
    [[nodiscard]] static std::string keyPrefixFor(const std::string &modelKey,
                                                  const LayoutGraph &graph);

    /// The cached layout, from memory or disk; nullptr on a miss (or an unreadable file).
    [[nodiscard]] std::shared_ptr<const Layout> find(const std::string &key);
    /// The cached layout when it is held in memory (no file is read: cheap enough for the UI
    /// thread), else nullptr.
    [[nodiscard]] std::shared_ptr<const Layout> findInMemory(const std::string &key);
    /// True when a layout whose key starts with `prefix` is held in memory.
    [[nodiscard]] bool holdsInMemory(const std::string &prefix);
    /// Stores a layout in memory and (atomically: temporary file + rename) on disk. Disk
    /// errors are ignored: the cache is an optimisation.
    void store(const std::string &key, const std::shared_ptr<const Layout> &layout);

    [[nodiscard]] const std::string &directory() const { return m_directory; }
    /// The file a key is stored in (empty without a directory).
    [[nodiscard]] std::string pathFor(const std::string &key) const;

private:
    std::string m_directory;
    std::size_t m_capacity;
    std::mutex m_mutex;
    std::list<std::string> m_recent; // most recent first
    std::unordered_map<std::string, std::shared_ptr<const Layout>> m_memory;
};

} // namespace cleave
