// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/support/InternPool.h"
#include "core/support/InternedString.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cleave {

/// A typed attribute value as it appears after `key=` in Relay text (or in graph.json / ONNX
/// attributes): a tree of ints, floats, bools, strings, lists, maps and opaque source blobs.
struct AttrValue
{
    enum class Kind : std::uint8_t {
        Null, ///< `None` / `nullptr`.
        Int, ///< `64`, `-1`, `1i64` (dtype says the width).
        Float, ///< `1e-05f`, `0.5f16` (dtype says the width); `text` keeps the source spelling.
        Bool, ///< `True` / `False`.
        String, ///< `"NCHW"` (decoded; printing re-escapes).
        List, ///< `[1, 1]`, `[[0, 0], [0, 1]]`.
        Map, ///< `{key=value, ...}`.
        MetaRef, ///< `meta[relay.Var][0]`: `text` is the whole reference.
        Opaque, ///< An unparseable repr such as `VirtualDevice(...)`: `text` is the source.
        GlobalRef, ///< `'name'` or `@name`: `text` is the name.
    };

    Kind kind = Kind::Null;
    std::int64_t intValue = 0;
    double floatValue = 0.0;
    bool boolValue = false;
    InternedString dtype; ///< Int / Float only: "int32", "int64", "float32", ... (interned)
    std::string text; ///< String value, float spelling, meta reference or opaque source.
    std::vector<AttrValue> list; ///< List items, or Map values (keys in `keys`).
    std::vector<std::string> keys; ///< Map keys, parallel to `list`.

    static AttrValue null() { return {}; }
    static AttrValue integer(std::int64_t v, const std::string &dtype = "int32");
    static AttrValue floating(double v, const std::string &dtype = "float32",
                              std::string spelling = {});
    /// integer() and floating() with the dtype already interned (importers that make many).
    static AttrValue integer(std::int64_t v, InternedString dtype);
    static AttrValue floating(double v, InternedString dtype, std::string spelling);
    static AttrValue boolean(bool v);
    static AttrValue string(std::string s);
    static AttrValue listOf(std::vector<AttrValue> items);

    [[nodiscard]] bool isNull() const { return kind == Kind::Null; }
    /// The value as an integer list (`[1, 1]` → {1, 1}; a single int → {v}); nullopt otherwise.
    [[nodiscard]] std::optional<std::vector<std::int64_t>> toIntList() const;
    /// The value as an integer (Int, or Bool as 0/1); nullopt otherwise.
    [[nodiscard]] std::optional<std::int64_t> toInt() const;

    /// Relay text of the value: `[1, 1]`, `1e-05f`, `"NCHW"`, `True`, `None`, `1i64`.
    [[nodiscard]] std::string toRelay() const;

    friend bool operator==(const AttrValue &a, const AttrValue &b);
};

/// True when `a` and `b` print the same: every field counts, a float by its bits and its
/// spelling (unlike ==, which calls 1e-05f and 1.0e-05f equal). Pools merge only such values.
bool identical(const AttrValue &a, const AttrValue &b);

/// A hash that agrees with identical().
std::size_t identityHash(const AttrValue &v);

namespace detail {

using AttributeItems = std::vector<std::pair<std::string, AttrValue>>;
struct AttributeItemsHash
{
    std::size_t operator()(const AttributeItems &items) const;
};
/// Equal down to a float's spelling (AttrValue's == calls 1e-05f and 1.0e-05f equal).
struct AttributeItemsIdentical
{
    bool operator()(const AttributeItems &a, const AttributeItems &b) const;
};
using AttributeItemsPool = InternPool<AttributeItems, AttributeItemsHash, AttributeItemsIdentical>;

} // namespace detail

/// Attributes in source order. Order matters for printing; lookup is linear (a handful of keys).
/// The items are kept once per process: a model repeats a few dozen distinct attribute maps over
/// thousands of calls (`axis=1`, `units=None`), so a node holds the 4-byte number of a pooled,
/// immutable list, and equal lists (identical down to a float's spelling) are the same entry.
/// Setting a key pools the changed list; the pool only grows (see InternPool) and is safe to use
/// from several threads.
class Attributes
{
public:
    using Item = std::pair<std::string, AttrValue>;

    /// No attributes.
    Attributes() = default;
    /// The pooled copy of `items` (in this order; later duplicates of a key are kept as given).
    explicit Attributes(std::vector<Item> items);

    [[nodiscard]] const std::vector<Item> &items() const
    {
        return m_number != 0 ? detail::AttributeItemsPool::instance().at(m_number) : noItems();
    }
    [[nodiscard]] bool isEmpty() const { return m_number == 0; }
    [[nodiscard]] std::size_t size() const { return items().size(); }
    /// The value of `key`, or nullptr. The pointer stays valid for the whole process.
    [[nodiscard]] const AttrValue *find(const std::string &key) const;
    /// Appends or replaces `key`.
    void set(std::string key, AttrValue value);
    /// Appends or replaces `key` in a list being built, which Attributes(items) then pools once
    /// (setting keys one by one would pool every intermediate list).
    static void setItem(std::vector<Item> &items, std::string key, AttrValue value);

    /// Convenience lookups that return `fallback` when absent or of another kind.
    [[nodiscard]] std::int64_t intOr(const std::string &key, std::int64_t fallback) const;
    [[nodiscard]] std::string stringOr(const std::string &key, const std::string &fallback) const;
    [[nodiscard]] std::optional<std::vector<std::int64_t>> intList(const std::string &key) const;

    /// Equal items by value (AttrValue's ==, so `1e-05f` equals `1.0e-05f`), not only the same
    /// pooled entry.
    friend bool operator==(const Attributes &a, const Attributes &b)
    {
        return a.m_number == b.m_number || a.items() == b.items();
    }

private:
    static const std::vector<Item> &noItems();

    std::uint32_t m_number = 0; ///< The pool's number of the items; 0 when there are none.
};

} // namespace cleave
