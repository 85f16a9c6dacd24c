// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// What the importer benchmarks share: timings (median, range and CPU time of several runs), the
// peak memory of one import (the growth of the resident set's high-water mark, reset through
// /proc/self/clear_refs, on top of the text already in memory) and one printed line per import.
#pragma once

#include "BenchSupport.h"
#include "core/formats/FormatRegistry.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace cleave::bench {

/// Median, fastest and slowest of several timings, in seconds, and the median CPU time of the
/// thread (on a shared machine the wall time also counts the time other processes ran).
struct Timing
{
    double median = 0;
    double fastest = 0;
    double slowest = 0;
    double cpu = 0;
};

inline double threadCpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// Runs `work` `runs` times and times each run.
inline Timing timingOf(const std::function<void()> &work, int runs)
{
    std::vector<double> times;
    std::vector<double> cpu;
    for (int i = 0; i < runs; ++i) {
        const double cpuStart = threadCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        cpu.push_back(threadCpuSeconds() - cpuStart);
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    return { times[times.size() / 2], times.front(), times.back(), cpu[cpu.size() / 2] };
}

/// The resident set's high-water mark (VmHWM), in kilobytes; 0 when unreadable.
inline double peakKb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atof(line.c_str() + 6);
    }
    return 0;
}

/// Starts a new high-water mark at the current resident set (Linux: "5" to clear_refs).
inline void resetPeak()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
}

/// Imports `text` or exits with status 2 and the first error.
inline ImportResult importOrExit(const std::string &text, const std::string &path)
{
    ImportResult r = importBytes(text, path);
    if (!r.ok()) {
        std::fprintf(stderr, "import of %s failed: %s\n", path.c_str(), r.firstError().c_str());
        std::exit(2);
    }
    return r;
}

/// What one measured import gives.
struct ImportFigures
{
    Timing seconds;
    std::size_t bytes = 0;
    std::size_t nodes = 0;
    double peakGrowthMb = 0; ///< High-water mark growth during one import, in MiB.

    [[nodiscard]] double mb() const { return static_cast<double>(bytes) / 1e6; }
    [[nodiscard]] double mbPerSecond() const { return mb() / seconds.median; }
    [[nodiscard]] double cpuMbPerSecond() const { return mb() / seconds.cpu; }
    /// Peak growth over the text's size.
    [[nodiscard]] double peakRatio() const
    {
        return peakGrowthMb * 1024.0 * 1024.0 / static_cast<double>(bytes);
    }
};

/// Writes `text` to `$CLEAVE_BENCH_SAVE_DIR/name` when that variable is set, so that a generated
/// module can be profiled on its own (`heaptrack cleave-cli inspect FILE`, `perf record ...`).
inline void saveIfAsked(const std::string &text, const std::string &name)
{
    const char *dir = std::getenv("CLEAVE_BENCH_SAVE_DIR");
    if (dir == nullptr || *dir == '\0')
        return;
    const std::string path = std::string(dir) + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    std::fprintf(stderr, "%s %s\n", out ? "wrote" : "could not write", path.c_str());
}

/// Memory first (one import on a trimmed heap), then `runs` timed imports. A generated module
/// (`path` without a folder) is also saved where CLEAVE_BENCH_SAVE_DIR asks.
inline ImportFigures measureImport(const std::string &text, const std::string &path, int runs)
{
    if (path.find('/') == std::string::npos)
        saveIfAsked(text, path);
    ImportFigures f;
    f.bytes = text.size();
    malloc_trim(0);
    resetPeak();
    const double before = residentKb();
    {
        const ImportResult r = importOrExit(text, path);
        f.nodes = r.graph->nodeCount();
    }
    f.peakGrowthMb = (peakKb() - before) / 1024.0;
    f.seconds = timingOf([&] { importOrExit(text, path); }, runs);
    return f;
}

/// One line: size, nodes, time, MB/s (median and range), CPU MB/s, bindings/s, peak memory.
inline void printImport(const char *label, const ImportFigures &f, double bindings)
{
    std::printf("  %s: %.2f MB, %zu nodes, %.1f ms (%.1f–%.1f)  →  %.1f MB/s (%.1f–%.1f)", label,
                f.mb(), f.nodes, f.seconds.median * 1e3, f.seconds.fastest * 1e3,
                f.seconds.slowest * 1e3, f.mbPerSecond(), f.mb() / f.seconds.slowest,
                f.mb() / f.seconds.fastest);
    std::printf(", CPU %.1f MB/s", f.cpuMbPerSecond());
    if (bindings > 0)
        std::printf(", %.0f bindings/s", bindings / f.seconds.median);
    std::printf("; peak RSS +%.1f MiB (%.2f× the text)\n", f.peakGrowthMb, f.peakRatio());
}

/// One JSON line for an import.
inline void printImportJson(const char *bench, const std::string &model, const ImportFigures &f)
{
    std::printf("{\"bench\": \"%s\", \"model\": \"%s\", \"bytes\": %zu, \"nodes\": %zu, "
                "\"import_ms\": %.2f, \"mb_per_s\": %.2f, \"cpu_mb_per_s\": %.2f, "
                "\"peak_mib\": %.1f, \"peak_over_text\": %.2f}\n",
                bench, model.c_str(), f.bytes, f.nodes, f.seconds.median * 1e3, f.mbPerSecond(),
                f.cpuMbPerSecond(), f.peakGrowthMb, f.peakRatio());
}

/// The whole file, or an empty string when it cannot be read.
inline std::string readWholeFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace cleave::bench
