// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace cleave {

/// A string kept once per process: a copy is its 4-byte number in the pool (InternPool) and
/// equality is a comparison of numbers. For the few distinct but endlessly repeated strings of a
/// model (operator names, dtypes, symbolic dimensions, type names). The pool only grows (it holds
/// what the opened models spelled, a few KB) and is guarded by a mutex, so importers on several
/// threads may intern at once; reading needs no lock.
class InternedString
{
public:
    InternedString() = default;
    /// The pooled copy of `text` (interned on first use).
    explicit InternedString(std::string_view text);
    InternedString &operator=(std::string_view text)
    {
        *this = InternedString(text);
        return *this;
    }

    [[nodiscard]] const std::string &str() const
    {
        return m_number != 0 ? pooled(m_number) : emptyString();
    }
    // Implicit, so that the string reads like the std::string it replaced.
    // NOLINTNEXTLINE(google-explicit-constructor,hicpp-explicit-conversions)
    operator const std::string &() const { return str(); }
    // NOLINTNEXTLINE(google-explicit-constructor,hicpp-explicit-conversions)
    operator std::string_view() const { return str(); }
    [[nodiscard]] bool empty() const { return m_number == 0; }
    [[nodiscard]] std::size_t size() const { return str().size(); }

    friend bool operator==(const InternedString &a, const InternedString &b)
    {
        return a.m_number == b.m_number;
    }
    friend bool operator==(const InternedString &a, std::string_view b) { return a.str() == b; }
    friend std::ostream &operator<<(std::ostream &out, const InternedString &s);

private:
    static const std::string &emptyString();
    static const std::string &pooled(std::uint32_t number);

    std::uint32_t m_number = 0; ///< The pool's number of the text; 0 for the empty string.
};

} // namespace cleave
