// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The editor's malloc settings: once applied, glibc's mmap threshold stays at 1 MiB, so that a
// big block freed does not make later big blocks come from the heaps (where their pages stay
// resident after they are freed).
#include "ui/document/MallocSettings.h"

#include <QTest>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>

class TestMallocSettings : public QObject
{
    Q_OBJECT
private slots:
    void bigBlocksKeepPagesOfTheirOwn();
};

void TestMallocSettings::bigBlocksKeepPagesOfTheirOwn()
{
#if !defined(__GLIBC__)
    QSKIP("the settings are glibc's");
#else
    QVERIFY(cleave::ui::applyMallocSettings());
    QCOMPARE(cleave::ui::mallocMmapThreshold, 1024 * 1024);
    // A 4 MiB block freed: with the dynamic threshold (glibc's default) the threshold would rise
    // to 4 MiB, and the next 2 MiB block would come from the heap. Fixed at 1 MiB, the 2 MiB
    // block is mapped on its own: one more mmapped block while it is held, none after.
    void *big = std::malloc(4 * 1024 * 1024);
    QVERIFY(big != nullptr);
    static_cast<volatile char *>(big)[0] = 1;
    std::free(big);
    const std::size_t mapped = mallinfo2().hblks;
    void *block = std::malloc(2 * 1024 * 1024);
    QVERIFY(block != nullptr);
    static_cast<volatile char *>(block)[0] = 1;
    QCOMPARE(mallinfo2().hblks, mapped + 1);
    std::free(block);
    QCOMPARE(mallinfo2().hblks, mapped);
#endif
}

QTEST_APPLESS_MAIN(TestMallocSettings)
#include "tst_mallocsettings.moc"
