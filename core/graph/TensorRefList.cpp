// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/TensorRefList.h"

#include <stdexcept>

namespace cleave {

const TensorRef &TensorRefList::at(std::size_t i) const
{
    if (i >= count())
        throw std::out_of_range("TensorRefList::at");
    return data()[i];
}

void TensorRefList::grow(std::size_t capacity)
{
    auto *heap = static_cast<TensorRef *>(::operator new(capacity * sizeof(TensorRef)));
    std::copy(begin(), end(), heap);
    if (!isInline())
        ::operator delete(heapData());
    setHeap(heap, capacity);
}

TensorRefList::iterator TensorRefList::insert(const_iterator pos, TensorRef value)
{
    const auto at = static_cast<std::size_t>(pos - begin());
    push_back(value);
    std::rotate(begin() + at, end() - 1, end());
    return begin() + at;
}

TensorRefList::iterator TensorRefList::erase(const_iterator first, const_iterator last)
{
    const auto from = static_cast<std::size_t>(first - begin());
    const auto to = static_cast<std::size_t>(last - begin());
    std::copy(begin() + to, end(), begin() + from);
    setCount(count() - (to - from));
    return begin() + from;
}

void TensorRefList::assign(const TensorRef *first, const TensorRef *last)
{
    const auto n = static_cast<std::size_t>(last - first);
    if (n > capacity()) {
        // Exactly as many as given: an imported node's list is assigned once and kept.
        release();
        setHeap(static_cast<TensorRef *>(::operator new(n * sizeof(TensorRef))), n);
    }
    std::copy(first, last, data());
    setCount(n);
}

} // namespace cleave
