// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// ScopeNames, the Relax parser's table of the names bound in a scope: TVM's numbered names in
// arrays, every other name in a hash map. It must answer exactly as one std::map of all names
// does, whichever part holds a name.
#include "core/io/relax/ScopeNames.h"

#include <QtTest/QtTest>

#include <map>
#include <random>
#include <string>
#include <vector>

using cleave::relax::ScopeNames;

class TestScopeNames : public QObject
{
    Q_OBJECT

private slots:
    void numberedAndOtherNames();
    void farNumbersAndDuplicates();
    void agreesWithAMap();
};

void TestScopeNames::numberedAndOtherNames()
{
    ScopeNames<int> names;
    names.reserve(16);
    QVERIFY(names.emplace("lv", 1).second); // TVM's first binding: no number
    QVERIFY(names.emplace("lv1", 2).second);
    QVERIFY(names.emplace("lv01", 3).second); // a leading zero: another name than lv1
    QVERIFY(names.emplace("gv1", 4).second);
    QVERIFY(names.emplace("x", 5).second);
    QVERIFY(names.emplace("lv0", 6).second);
    QCOMPARE(*names.find("lv"), 1);
    QCOMPARE(*names.find("lv1"), 2);
    QCOMPARE(*names.find("lv01"), 3);
    QCOMPARE(*names.find("gv1"), 4);
    QCOMPARE(*names.find("x"), 5);
    QCOMPARE(*names.find("lv0"), 6);
    QVERIFY(!names.contains("lv2"));
    QVERIFY(!names.contains("gv0"));
    QVERIFY(!names.contains("lv1x"));
    QVERIFY(!names.contains("l"));

    // A second binding of a name keeps the first and says so.
    const auto [first, inserted] = names.emplace("lv1", 99);
    QVERIFY(!inserted);
    QCOMPARE(*first, 2);

    names.erase("lv1");
    names.erase("x");
    names.erase("never-bound");
    QVERIFY(!names.contains("lv1"));
    QVERIFY(!names.contains("x"));
    QCOMPARE(*names.find("lv01"), 3);
    QVERIFY(names.emplace("lv1", 7).second);
    QCOMPARE(*names.find("lv1"), 7);
}

void TestScopeNames::farNumbersAndDuplicates()
{
    // A number far past the others goes to the map; when the array later grows past it, the
    // name is still found there, and binding it again is still a duplicate.
    ScopeNames<int> names;
    const std::size_t far = ScopeNames<int>::maxGap + 10;
    const std::string farName = "lv" + std::to_string(far);
    QVERIFY(names.emplace(farName, 1).second);
    for (std::size_t i = 0; i < far + 5; ++i) {
        if (i != far)
            QVERIFY(names.emplace("lv" + std::to_string(i), static_cast<int>(i) + 10).second);
    }
    QCOMPARE(*names.find(farName), 1);
    QVERIFY(!names.emplace(farName, 2).second);
    QCOMPARE(*names.find("lv" + std::to_string(far + 4)), static_cast<int>(far) + 14);
    names.erase(farName);
    QVERIFY(!names.contains(farName));
    QVERIFY(names.emplace(farName, 3).second);
    QCOMPARE(*names.find(farName), 3);
    // Ten digits and more are ordinary names.
    QVERIFY(names.emplace("lv1234567890", 4).second);
    QCOMPARE(*names.find("lv1234567890"), 4);
}

// Random binds, lookups and erases over a small set of names of every kind, against std::map.
void TestScopeNames::agreesWithAMap()
{
    const std::vector<std::string> pool { "lv",          "lv0",  "lv1",    "lv2",    "lv10",
                                          "lv01",        "gv",   "gv0",    "gv1",    "gv7",
                                          "x",           "data", "lv5000", "lv9000", "gv4096",
                                          "lv123456789", "lvx" };
    std::mt19937 random(7);
    ScopeNames<int> names;
    std::map<std::string, int> reference;
    for (int step = 0; step < 20000; ++step) {
        const std::string &name = pool[random() % pool.size()];
        switch (random() % 3) {
        case 0: {
            const auto [bound, inserted] = names.emplace(name, step);
            const auto [it, expected] = reference.emplace(name, step);
            QCOMPARE(inserted, expected);
            QCOMPARE(*bound, it->second);
            break;
        }
        case 1:
            names.erase(name);
            reference.erase(name);
            break;
        default:
            break;
        }
        for (const std::string &probe : pool) {
            const int *found = names.find(probe);
            const auto it = reference.find(probe);
            QCOMPARE(found != nullptr, it != reference.end());
            if (found)
                QCOMPARE(*found, it->second);
        }
    }
}

QTEST_APPLESS_MAIN(TestScopeNames)
#include "tst_scopenames.moc"
