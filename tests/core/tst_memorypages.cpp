// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// releasePages, which gives the unused tail of a buffer reserved from an estimate back to the
// system: only whole pages inside the range go, the rest of the buffer keeps its bytes, the
// released pages stop counting as resident and read as zeros, and the memory stays usable.
#include "core/support/MemoryPages.h"

#include <QtTest/QtTest>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

using namespace cleave;

namespace {

std::size_t pageSize()
{
    return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Resident bytes of this process (/proc/self/statm, second field, in pages).
std::size_t residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    std::size_t size = 0;
    std::size_t resident = 0;
    statm >> size >> resident;
    return resident * pageSize();
}

struct FreeDeleter
{
    void operator()(char *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;

// `bytes` (a multiple of the page size) from a page boundary, every byte written as 'x'.
Buffer writtenPages(std::size_t bytes)
{
    Buffer buffer(static_cast<char *>(std::aligned_alloc(pageSize(), bytes)));
    if (buffer)
        std::memset(buffer.get(), 'x', bytes);
    return buffer;
}

} // namespace

class TestMemoryPages : public QObject
{
    Q_OBJECT

private slots:
    void onlyWholePagesInsideTheRange();
    void releasedTailIsNoLongerResident();
};

void TestMemoryPages::onlyWholePagesInsideTheRange()
{
    const std::size_t page = pageSize();
    const Buffer buffer = writtenPages(4 * page);
    QVERIFY(buffer);
    char *const b = buffer.get();
    // [b + 1, b + 1 + 2 pages) holds one whole page: [b + page, b + 2 pages).
    QCOMPARE(releasePages(b + 1, 2 * page), page);
    QCOMPARE(b[page - 1], 'x');
    QCOMPARE(b[page], '\0');
    QCOMPARE(b[2 * page - 1], '\0');
    QCOMPARE(b[2 * page], 'x');
    QCOMPARE(b[4 * page - 1], 'x');
    // Less than a page, or nothing at all, releases nothing.
    QCOMPARE(releasePages(b + 1, page - 1), std::size_t(0));
    QCOMPARE(releasePages(b + 3 * page + 1, page), std::size_t(0));
    QCOMPARE(releasePages(nullptr, 8 * page), std::size_t(0));
    QCOMPARE(b[3 * page + 1], 'x');
    // A released page can be written again.
    b[page] = 'y';
    QCOMPARE(b[page], 'y');
}

void TestMemoryPages::releasedTailIsNoLongerResident()
{
    const std::size_t mib = std::size_t { 1 } << 20;
    const std::size_t page = pageSize();
    const Buffer buffer = writtenPages(64 * mib);
    QVERIFY(buffer);
    char *const b = buffer.get();
    const std::size_t before = residentBytes();
    QCOMPARE(releasePages(b + 16 * mib, 48 * mib), 48 * mib);
    const std::size_t after = residentBytes();
    // 48 MiB left the resident set (allow 8 MiB for whatever else the process did meanwhile).
    QVERIFY2(before > after + 40 * mib,
             qPrintable(QString("resident %1 -> %2 MiB").arg(before >> 20).arg(after >> 20)));
    for (std::size_t i = 0; i < 16 * mib; i += page)
        QCOMPARE(b[i], 'x');
    for (std::size_t i = 16 * mib; i < 64 * mib; i += page)
        QCOMPARE(b[i], '\0');
}

QTEST_APPLESS_MAIN(TestMemoryPages)
#include "tst_memorypages.moc"
