// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// HashedIdIndex, the table behind Graph::findByKey: every key added is found with its id, a
// key not added is not, and adding an equal key again reports the id that holds it (the rule
// buildKeys uses to find ambiguous keys). std::unordered_map is the independent reference.
#include "core/support/HashedIdIndex.h"

#include <QtTest/QtTest>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace cleave;

class TestHashedIdIndex : public QObject
{
    Q_OBJECT

private slots:
    void emptyIndexFindsNothing();
    void byHand();
    void matchesUnorderedMap();
};

void TestHashedIdIndex::emptyIndexFindsNothing()
{
    const HashedIdIndex index;
    const auto keyOf = [](std::uint32_t) { return std::string_view(); };
    QCOMPARE(index.find("%0", keyOf), HashedIdIndex::none);
    QCOMPARE(index.find("", keyOf), HashedIdIndex::none);
}

void TestHashedIdIndex::byHand()
{
    const std::vector<std::string> keys { "%0", "%1", "", "@f:%0", "%0" };
    const auto keyOf = [&](std::uint32_t id) -> const std::string & { return keys[id]; };
    HashedIdIndex index;
    index.reset(keys.size());
    QCOMPARE(index.insert(keys[0], 0, keyOf), HashedIdIndex::none);
    QCOMPARE(index.insert(keys[1], 1, keyOf), HashedIdIndex::none);
    QCOMPARE(index.insert(keys[2], 2, keyOf), HashedIdIndex::none);
    QCOMPARE(index.insert(keys[3], 3, keyOf), HashedIdIndex::none);
    QCOMPARE(index.insert(keys[4], 4, keyOf), 0U); // `%0` is taken by id 0
    QCOMPARE(index.find("%0", keyOf), 0U);
    QCOMPARE(index.find("%1", keyOf), 1U);
    QCOMPARE(index.find("", keyOf), 2U);
    QCOMPARE(index.find("@f:%0", keyOf), 3U);
    QCOMPARE(index.find("%2", keyOf), HashedIdIndex::none);
    QCOMPARE(index.find("%", keyOf), HashedIdIndex::none);
}

void TestHashedIdIndex::matchesUnorderedMap()
{
    // 100,000 keys from a small alphabet, so many repeat; the table is filled to its limit.
    std::mt19937 random(33);
    std::vector<std::string> keys(100000);
    for (std::string &k : keys) {
        const int length = 1 + static_cast<int>(random() % 4);
        for (int c = 0; c < length; ++c)
            k += static_cast<char>('a' + random() % 12);
    }
    const auto keyOf = [&](std::uint32_t id) -> const std::string & { return keys[id]; };
    HashedIdIndex index;
    index.reset(keys.size());
    std::unordered_map<std::string, std::uint32_t> reference;
    for (std::uint32_t id = 0; id < keys.size(); ++id) {
        const auto [it, added] = reference.emplace(keys[id], id);
        const std::uint32_t expected = added ? HashedIdIndex::none : it->second;
        QCOMPARE(index.insert(keys[id], id, keyOf), expected);
    }
    for (const auto &[key, id] : reference)
        QCOMPARE(index.find(key, keyOf), id);
    QCOMPARE(index.find("zzzzz", keyOf), HashedIdIndex::none); // 'z' is not in the alphabet
}

QTEST_APPLESS_MAIN(TestHashedIdIndex)
#include "tst_hashedidindex.moc"
