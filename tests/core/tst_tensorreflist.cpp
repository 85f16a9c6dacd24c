// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// TensorRefList, the list behind Node::inputs and a fused block's inputs and outputs: two refs
// in place, more in one heap block, and std::vector's behaviour for what the graph code calls.
#include "core/graph/TensorRefList.h"

#include <QtTest/QtTest>

#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace cleave;

class TestTensorRefList : public QObject
{
    Q_OBJECT

private slots:
    void twoStayInPlaceAndMoreGoToTheHeap();
    void insertAndEraseKeepTheOrder();
    void copiesAndMovesAreIndependent();
    void assignFromAVectorIsExact();
    void equalityAndBounds();
};

namespace {

TensorRef ref(std::size_t node, std::uint32_t output = 0)
{
    return TensorRef { NodeId(node), output };
}

std::vector<TensorRef> refs(std::initializer_list<std::size_t> nodes)
{
    std::vector<TensorRef> out;
    for (std::size_t n : nodes)
        out.push_back(ref(n));
    return out;
}

} // namespace

void TestTensorRefList::twoStayInPlaceAndMoreGoToTheHeap()
{
    TensorRefList list;
    QVERIFY(list.empty());
    QCOMPARE(list.capacity(), std::size_t(2));
    list.push_back(ref(1));
    list.push_back(ref(2, 3));
    // Still in place: the elements lie inside the object itself.
    const auto *self = reinterpret_cast<const char *>(&list);
    const auto *first = reinterpret_cast<const char *>(list.data());
    QVERIFY(first >= self && first < self + sizeof(TensorRefList));
    QCOMPARE(list.capacity(), std::size_t(2));
    // The third goes to a heap block of four, keeping the first two.
    list.push_back(ref(3));
    QCOMPARE(list.capacity(), std::size_t(4));
    first = reinterpret_cast<const char *>(list.data());
    QVERIFY(first < self || first >= self + sizeof(TensorRefList));
    QCOMPARE(list.size(), std::size_t(3));
    QCOMPARE(list.toVector(), (std::vector<TensorRef> { ref(1), ref(2, 3), ref(3) }));
    // A push of an element of the list itself while it grows (4 -> 8).
    list.push_back(list[0]);
    list.push_back(list[1]);
    QCOMPARE(list.capacity(), std::size_t(8));
    QCOMPARE(list.toVector(),
             (std::vector<TensorRef> { ref(1), ref(2, 3), ref(3), ref(1), ref(2, 3) }));
    QCOMPARE(list.front(), ref(1));
    QCOMPARE(list.back(), ref(2, 3));
    list.clear();
    QVERIFY(list.empty());
    QCOMPARE(list.capacity(), std::size_t(8)); // as std::vector, clear() keeps the block
}

void TestTensorRefList::insertAndEraseKeepTheOrder()
{
    TensorRefList list { ref(1), ref(3) };
    QCOMPARE(*list.insert(list.begin() + 1, ref(2)), ref(2));
    QCOMPARE(list.toVector(), refs({ 1, 2, 3 }));
    list.insert(list.begin(), ref(0));
    list.insert(list.end(), ref(4));
    QCOMPARE(list.toVector(), refs({ 0, 1, 2, 3, 4 }));
    QCOMPARE(*list.erase(list.begin() + 1), ref(2));
    QCOMPARE(list.toVector(), refs({ 0, 2, 3, 4 }));
    const TensorRef *after = list.erase(list.begin() + 2, list.end());
    QCOMPARE(after, list.end());
    QCOMPARE(list.toVector(), refs({ 0, 2 }));
    list.resize(4);
    QCOMPARE(list.size(), std::size_t(4));
    QVERIFY(!list[3].isValid());
    list.resize(1);
    QCOMPARE(list.toVector(), refs({ 0 }));
}

void TestTensorRefList::copiesAndMovesAreIndependent()
{
    TensorRefList small { ref(1) };
    TensorRefList big { ref(1), ref(2), ref(3), ref(4), ref(5) };
    TensorRefList copy = big;
    copy[0] = ref(9);
    QCOMPARE(big[0], ref(1));
    QCOMPARE(copy.toVector(), refs({ 9, 2, 3, 4, 5 }));
    // A move takes the heap block and leaves an empty list in place.
    const TensorRef *block = big.data();
    TensorRefList moved = std::move(big);
    QCOMPARE(moved.data(), block);
    QVERIFY(big.empty()); // NOLINT(bugprone-use-after-move): a moved-from list is empty
    QCOMPARE(big.capacity(), std::size_t(2));
    // Assigning a small list over a big one and back.
    moved = small;
    QCOMPARE(moved.toVector(), refs({ 1 }));
    small = std::move(copy);
    QCOMPARE(small.toVector(), refs({ 9, 2, 3, 4, 5 }));
    small = small; // NOLINT(clang-diagnostic-self-assign-overloaded): self-assignment is a no-op
    QCOMPARE(small.size(), std::size_t(5));
}

void TestTensorRefList::assignFromAVectorIsExact()
{
    // A list built elsewhere and assigned once (as an importer does) takes just its size.
    TensorRefList list;
    list = refs({ 1, 2, 3, 4, 5 });
    QCOMPARE(list.capacity(), std::size_t(5));
    list = refs({ 7 });
    QCOMPARE(list.toVector(), refs({ 7 }));
    const TensorRefList fromVector(refs({ 4, 5, 6 }));
    QCOMPARE(fromVector.capacity(), std::size_t(3));
    QVERIFY(fromVector == refs({ 4, 5, 6 }));
}

void TestTensorRefList::equalityAndBounds()
{
    const TensorRefList a { ref(1), ref(2, 1) };
    const TensorRefList b { ref(1), ref(2, 1) };
    const TensorRefList c { ref(1), ref(2, 0) };
    QVERIFY(a == b);
    QVERIFY(!(a == c));
    QVERIFY(!(a == TensorRefList { ref(1) }));
    QCOMPARE(a.at(1), ref(2, 1));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)a.at(2));
    // A span views it (contiguous storage).
    const std::span<const TensorRef> view(a);
    QCOMPARE(view.size(), std::size_t(2));
    QCOMPARE(view[1], ref(2, 1));
}

QTEST_APPLESS_MAIN(TestTensorRefList)
#include "tst_tensorreflist.moc"
