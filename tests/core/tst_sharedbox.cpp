// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// SharedBox, the copy-on-write box of a node's rarely set fields, and Node's use of it: copies
// share one block until one of them is changed, and the others keep what they had.
#include "core/graph/Graph.h"
#include "core/support/SharedBox.h"

#include <QtTest/QtTest>

#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace cleave;

class TestSharedBox : public QObject
{
    Q_OBJECT

private slots:
    void copiesShareUntilOneChanges();
    void movesAndAssignmentsCountShares();
    void nodeCopiesKeepTheirOwnDetail();
    void sharesAreCountedAcrossThreads();
};

void TestSharedBox::copiesShareUntilOneChanges()
{
    static_assert(sizeof(SharedBox<std::string>) == sizeof(void *));
    SharedBox<std::string> a;
    QVERIFY(!a.hasValue());
    QCOMPARE(a.shares(), std::size_t(0));
    a.unshared() = "meta[relay.Constant][0]";
    QCOMPARE(a.shares(), std::size_t(1));
    SharedBox<std::string> b = a;
    QCOMPARE(a.shares(), std::size_t(2));
    QCOMPARE(&a.value(), &b.value()); // one block
    b.unshared() += "!";
    QCOMPARE(a.value(), std::string("meta[relay.Constant][0]"));
    QCOMPARE(b.value(), std::string("meta[relay.Constant][0]!"));
    QCOMPARE(a.shares(), std::size_t(1));
    QCOMPARE(b.shares(), std::size_t(1));
    // The only holder changes its value in place.
    const std::string *before = &a.value();
    a.unshared() = "x";
    QCOMPARE(&a.value(), before);
}

void TestSharedBox::movesAndAssignmentsCountShares()
{
    SharedBox<std::vector<int>> a;
    a.unshared() = { 1, 2, 3 };
    SharedBox<std::vector<int>> b;
    b = a;
    SharedBox<std::vector<int>> c = std::move(b);
    QVERIFY(!b.hasValue()); // NOLINT(bugprone-use-after-move): a moved-from box is empty
    QCOMPARE(a.shares(), std::size_t(2));
    c = c; // NOLINT(clang-diagnostic-self-assign-overloaded): self-assignment keeps the count
    QCOMPARE(a.shares(), std::size_t(2));
    c = SharedBox<std::vector<int>>();
    QCOMPARE(a.shares(), std::size_t(1));
    QCOMPARE(a.value(), (std::vector<int> { 1, 2, 3 }));
}

void TestSharedBox::nodeCopiesKeepTheirOwnDetail()
{
    Node plain;
    plain.setSpan(""); // empty values make no detail
    QVERIFY(!plain.hasDetail());
    QVERIFY(plain.span().empty());
    Node n;
    n.setMetaRef("meta[relay.Constant][3]");
    n.setSpan("conv1");
    Node copy = n;
    copy.setSpan("conv1_copy");
    QCOMPARE(n.span(), std::string("conv1"));
    QCOMPARE(copy.span(), std::string("conv1_copy"));
    QCOMPARE(copy.metaRef(), std::string("meta[relay.Constant][3]"));
    copy.setMetaRef("");
    QCOMPARE(n.metaRef(), std::string("meta[relay.Constant][3]"));
    QVERIFY(copy.metaRef().empty());
}

void TestSharedBox::sharesAreCountedAcrossThreads()
{
    // Two threads copy and drop the same box 100,000 times each: the count ends where it began.
    SharedBox<std::string> box;
    box.unshared() = "shared";
    auto churn = [&box] {
        for (int i = 0; i < 100000; ++i) {
            const SharedBox<std::string> copy = box;
            (void)copy;
        }
    };
    std::thread t1(churn);
    std::thread t2(churn);
    t1.join();
    t2.join();
    QCOMPARE(box.shares(), std::size_t(1));
    QCOMPARE(box.value(), std::string("shared"));
}

QTEST_APPLESS_MAIN(TestSharedBox)
#include "tst_sharedbox.moc"
