// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/FlatMap.h"
#include "core/layout/Layout.h"

#include <QtTest/QtTest>

#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace cleave;

class TestFlatMap : public QObject
{
    Q_OBJECT

private slots:
    void insertionsKeepKeyOrder();
    void lookupsOfPresentAndAbsentKeys();
    void emplaceKeepsAndAssignReplaces();
    void fromUnsortedSortsAndKeepsTheLastDuplicate();
    void eraseRemovesOneEntry();
    void layoutMapsIterateInIdOrder();
};

namespace {

std::vector<int> keysOf(const FlatMap<int, std::string> &map)
{
    std::vector<int> keys;
    for (const auto &[key, value] : map)
        keys.push_back(key);
    return keys;
}

} // namespace

void TestFlatMap::insertionsKeepKeyOrder()
{
    // Inserted 30, 10, 20, 40, 5: the first and fourth append, the others go in between.
    FlatMap<int, std::string> map;
    map[30] = "c";
    map[10] = "a";
    map[20] = "b";
    map[40] = "d";
    map[5] = "z";
    QCOMPARE(map.size(), std::size_t(5));
    QCOMPARE(keysOf(map), (std::vector<int> { 5, 10, 20, 30, 40 }));
    std::string values;
    for (const auto &[key, value] : map)
        values += value;
    QCOMPARE(values, std::string("zabcd"));
    // operator[] of a present key returns its value, without inserting.
    map[20] += "!";
    QCOMPARE(map.size(), std::size_t(5));
    QCOMPARE(map.at(20), std::string("b!"));
}

void TestFlatMap::lookupsOfPresentAndAbsentKeys()
{
    FlatMap<int, std::string> map;
    QVERIFY(map.empty());
    QVERIFY(map.find(1) == map.end()); // an empty map finds nothing
    map[2] = "two";
    map[4] = "four";
    map[6] = "six";
    QCOMPARE(map.find(4)->second, std::string("four"));
    QCOMPARE(map.count(6), std::size_t(1));
    QVERIFY(map.contains(2));
    // Absent: below the first key, between two keys, above the last one.
    for (int absent : { 1, 3, 5, 7 }) {
        QVERIFY(map.find(absent) == map.end());
        QCOMPARE(map.count(absent), std::size_t(0));
        QVERIFY(!map.contains(absent));
    }
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)map.at(5));
    const FlatMap<int, std::string> &constMap = map;
    QCOMPARE(constMap.at(2), std::string("two"));
    QVERIFY(constMap.find(3) == constMap.end());
    // lowerBound: the first key not below the argument.
    QCOMPARE(map.lowerBound(3)->first, 4);
    QVERIFY(map.lowerBound(7) == map.end());
    // No lookup inserted anything.
    QCOMPARE(map.size(), std::size_t(3));
}

void TestFlatMap::emplaceKeepsAndAssignReplaces()
{
    FlatMap<int, std::string> map;
    QVERIFY(map.emplace(1, "one").second);
    const auto again = map.emplace(1, "uno");
    QVERIFY(!again.second); // as std::map::emplace: a present key keeps its value
    QCOMPARE(again.first->second, std::string("one"));
    QVERIFY(!map.insertOrAssign(1, std::string("uno")).second);
    QCOMPARE(map.at(1), std::string("uno"));
    // emplace in key order appends; out of order it still lands in its place.
    map.emplace(3, "three");
    map.emplace(2, "two");
    QCOMPARE(keysOf(map), (std::vector<int> { 1, 2, 3 }));
}

void TestFlatMap::fromUnsortedSortsAndKeepsTheLastDuplicate()
{
    // (3,a) (1,b) (3,c) (2,d) (1,e): keys 1, 2, 3; of the duplicates the later ones (e, c).
    auto map = FlatMap<int, std::string>::fromUnsorted(
        { { 3, "a" }, { 1, "b" }, { 3, "c" }, { 2, "d" }, { 1, "e" } });
    QCOMPARE(map.size(), std::size_t(3));
    QCOMPARE(keysOf(map), (std::vector<int> { 1, 2, 3 }));
    QCOMPARE(map.at(1), std::string("e"));
    QCOMPARE(map.at(2), std::string("d"));
    QCOMPARE(map.at(3), std::string("c"));
    using Map = FlatMap<int, std::string>;
    QVERIFY(Map::fromUnsorted({}).empty());
}

void TestFlatMap::eraseRemovesOneEntry()
{
    auto map = FlatMap<int, std::string>::fromUnsorted({ { 1, "a" }, { 2, "b" }, { 3, "c" } });
    QCOMPARE(map.erase(2), std::size_t(1));
    QCOMPARE(map.erase(2), std::size_t(0));
    QCOMPARE(keysOf(map), (std::vector<int> { 1, 3 }));
    const auto next = map.erase(map.find(1));
    QCOMPARE(next->first, 3);
    QCOMPARE(map.size(), std::size_t(1));
    // Equality compares the entries in order.
    using Map = FlatMap<int, std::string>;
    QVERIFY(map == Map::fromUnsorted({ { 3, "c" } }));
    QVERIFY(!(map == Map::fromUnsorted({ { 3, "d" } })));
}

void TestFlatMap::layoutMapsIterateInIdOrder()
{
    // A layout's nodes filled out of order iterate by node id, its edges by (tensor's node,
    // output, consumer), as its std::maps did; lookups answer nothing for what is not drawn.
    Layout l;
    l.nodes[NodeId(9U)] = { 90, 0, 10, 10 };
    l.nodes[NodeId(2U)] = { 20, 0, 10, 10 };
    l.nodes[NodeId(5U)] = { 50, 0, 10, 10 };
    std::vector<std::uint32_t> ids;
    for (const auto &[id, r] : l.nodes)
        ids.push_back(id.value);
    QCOMPARE(ids, (std::vector<std::uint32_t> { 2, 5, 9 }));
    QCOMPARE(l.rect(NodeId(5U))->x, 50.0F);
    QVERIFY(l.rect(NodeId(4U)) == nullptr);
    QVERIFY(l.rect(NodeId(10U)) == nullptr);

    const TensorRef t5 { NodeId(5U), 0 };
    const TensorRef t2out1 { NodeId(2U), 1 };
    const TensorRef t2out0 { NodeId(2U), 0 };
    // Routes are added in id order, (2.0 -> 5), (2.0 -> 9), (2.1 -> 9), (5.0 -> 9), one point
    // each; a route out of that order is refused.
    auto add = [&](TensorRef t, NodeId consumer, double v) {
        const LayoutPoint p(v, v);
        return l.edges.append(EdgeRef { t, consumer }, std::span<const LayoutPoint>(&p, 1), {},
                              false, false);
    };
    QVERIFY(add(t2out0, NodeId(5U), 4));
    QVERIFY(add(t2out0, NodeId(9U), 3));
    QVERIFY(add(t2out1, NodeId(9U), 2));
    QVERIFY(!add(t2out1, NodeId(5U), 9)); // before (2.1 -> 9)
    QVERIFY(!add(t2out1, NodeId(9U), 9)); // the same edge again
    QVERIFY(add(t5, NodeId(9U), 1));
    std::vector<double> order;
    for (const auto &[key, s] : l.edges)
        order.push_back(s.points().front().x);
    QCOMPARE(order, (std::vector<double> { 4, 3, 2, 1 }));
    QCOMPARE(l.edges.pointCount(), std::size_t(4));
    QCOMPARE(l.spline(t2out1, NodeId(9U))->points().front().y, 2.0F);
    QVERIFY(!l.spline(t2out1, NodeId(5U)).has_value());
    QVERIFY(!l.spline(TensorRef { NodeId(9U), 0 }, NodeId(2U)).has_value());
}

QTEST_APPLESS_MAIN(TestFlatMap)
#include "tst_flatmap.moc"
