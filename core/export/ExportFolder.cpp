// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ExportFolder.h"

#include "core/support/FileIo.h"

#include <fcntl.h>
#include <sys/file.h> // flock
#include <sys/stat.h> // mkfifo
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#if defined(__linux__)
#include <linux/fs.h> // RENAME_EXCHANGE
#endif

namespace cleave {

namespace fs = std::filesystem;

namespace {

Diagnostic ioError(std::string message)
{
    return Diagnostic::make(Severity::Error, "export.io", std::move(message));
}

/// `.<name>.<tag>-` : the prefix of the temporary siblings of `target`.
std::string siblingPrefix(const fs::path &target, const std::string &tag)
{
    return "." + target.filename().string() + "." + tag + "-";
}

/// A sibling of `target` named `.<name>.<tag>-N` that nothing else uses.
fs::path freshSibling(const fs::path &target, const std::string &tag)
{
    thread_local std::mt19937_64 rng(
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    for (;;) {
        fs::path p = target.parent_path()
            / (siblingPrefix(target, tag) + std::to_string(rng() % 1000000000));
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(p, ec)))
            return p;
    }
}

/// The siblings `.<name>.<tag>-<digits>` of `target`.
std::vector<fs::path> leftovers(const fs::path &target, const std::string &tag)
{
    std::vector<fs::path> found;
    const std::string prefix = siblingPrefix(target, tag);
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(target.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0
            && name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
            found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

/// The files a previous export listed in `.cleave-export`; nullopt when there is no list.
std::optional<std::set<std::string>> ownedFiles(const fs::path &folder)
{
    std::string ignored;
    const auto text = readRegularFile((folder / exportOwnedList).string(), 1 << 20, ignored);
    if (!text)
        return std::nullopt;
    std::istringstream lines(*text);
    std::string line;
    std::set<std::string> owned;
    if (!std::getline(lines, line) || line != "cleave-export 1")
        return std::nullopt;
    while (std::getline(lines, line)) {
        if (!line.empty())
            owned.insert(line);
    }
    return owned;
}

/// Swaps the folders `a` and `b` in one step. False (errno set) when the system or file
/// system cannot (ENOSYS, EINVAL): the caller falls back to two renames.
bool exchange(const fs::path &a, const fs::path &b)
{
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
#else
    (void)a;
    (void)b;
    errno = ENOSYS;
    return false;
#endif
}

/// fsync of a folder, so that the names of the files written into it (and a rename in it) are
/// on disk before the swap that publishes them, as atomic-save implementations do.
bool syncFolder(const fs::path &folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    const int error = errno;
    ::close(fd);
    errno = error;
    return ok;
}

/// An exclusive flock(2) on `.<name>.lock` beside the target, held for the whole export: two
/// exports into one folder at once would remove each other's files (one's clean-up of
/// leftovers deletes the other's new folder). The lock file stays; flock ends with the process.
class FolderLock
{
public:
    FolderLock() = default;
    FolderLock(const FolderLock &) = delete;
    FolderLock &operator=(const FolderLock &) = delete;
    ~FolderLock()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    /// Takes the lock of `target`, or says why not (another export holds it, or the file).
    bool take(const fs::path &target, std::vector<Diagnostic> &diagnostics)
    {
        const fs::path file = target.parent_path() / ("." + target.filename().string() + ".lock");
        m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        if (m_fd < 0) {
            diagnostics.push_back(ioError("cannot open the lock file " + file.string() + ": "
                                          + std::strerror(errno)));
            return false;
        }
        struct stat info
        { };
        if (::fstat(m_fd, &info) != 0 || !S_ISREG(info.st_mode)) {
            diagnostics.push_back(
                ioError("the lock file " + file.string() + " is not a regular file"));
            return false;
        }
        if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno == EWOULDBLOCK)
            diagnostics.push_back(Diagnostic::make(
                Severity::Error, "export.busy",
                "another export is writing " + target.string() + " (it holds " + file.string()
                    + "); nothing was written: export again when it has finished"));
        else
            diagnostics.push_back(
                ioError("cannot lock " + file.string() + ": " + std::strerror(errno)));
        return false;
    }

private:
    int m_fd = -1;
};

/// One export into one folder; the steps of writeExportFolder.
class FolderWriter
{
public:
    FolderWriter(fs::path target, const ExportOptions &options,
                 std::vector<Diagnostic> &diagnostics)
        : m_target(std::move(target))
        , m_options(options)
        , m_diagnostics(diagnostics)
    {
    }

    bool run(const std::vector<std::pair<std::string, std::string>> &files)
    {
        if (!cleanLeftovers() || !step("cleaned") || !checkTarget())
            return false;
        std::error_code ec;
        m_tmp = freshSibling(m_target, "tmp");
        if (!fs::create_directory(m_tmp, ec))
            return fail("cannot create " + m_tmp.string() + ": " + ec.message());
        if (!step("created"))
            return false;
        std::string list = "cleave-export 1\n";
        for (const auto &[name, content] : files) {
            // File names are ours (mod<k>.relay, ...): never a path that leaves the folder.
            if (name.empty() || name.find_first_of("/\\") != std::string::npos || name == "."
                || name == ".." || name == exportOwnedList)
                return discard("refusing to write '" + name + "': not a plain file name");
            std::string error;
            if (!writeFileAtomically((m_tmp / name).string(), content, &error))
                return discard(error);
            list += name + "\n";
            m_newFiles.insert(name);
            if (!step("wrote " + name))
                return false;
        }
        std::string error;
        if (!writeFileAtomically((m_tmp / exportOwnedList).string(), list, &error))
            return discard(error);
        if (!step("listed"))
            return false;
        if (m_targetExists && !carryUserFiles())
            return false;
        if (!syncFolder(m_tmp))
            return discard("cannot sync " + m_tmp.string() + ": " + std::strerror(errno));
        if (!step("carried"))
            return false;
        return m_targetExists ? replaceTarget() : moveIntoPlace();
    }

private:
    bool step(const std::string &name)
    {
        if (!m_options.stepHook || m_options.stepHook(name))
            return true;
        m_diagnostics.push_back(Diagnostic::make(Severity::Error, "export.interrupted",
                                                 "export interrupted at step '" + name + "'"));
        return false;
    }

    bool fail(const std::string &message)
    {
        m_diagnostics.push_back(ioError(message));
        return false;
    }

    /// Fails after removing the half-written temporary folder; the target is untouched.
    bool discard(const std::string &message)
    {
        std::error_code ignored;
        fs::remove_all(m_tmp, ignored);
        return fail(message + (m_targetExists ? "; " + m_target.string() + " is unchanged" : ""));
    }

    bool cleanLeftovers()
    {
        std::error_code ec;
        const std::vector<fs::path> old = leftovers(m_target, "old");
        if (!fs::exists(fs::symlink_status(m_target, ec)) && old.size() == 1) {
            // The fallback swap was interrupted after moving the previous export away.
            fs::rename(old.front(), m_target, ec);
            if (ec)
                return fail("the previous export is in " + old.front().string()
                            + " and cannot be moved back to " + m_target.string() + ": "
                            + ec.message());
        } else {
            for (const fs::path &p : old)
                fs::remove_all(p, ec);
        }
        for (const fs::path &p : leftovers(m_target, "tmp"))
            fs::remove_all(p, ec);
        return true;
    }

    bool checkTarget()
    {
        std::error_code ec;
        const fs::file_status status = fs::symlink_status(m_target, ec);
        m_targetExists = fs::exists(status);
        if (!m_targetExists)
            return true;
        if (!fs::is_directory(status))
            return fail(m_target.string() + " exists and is not a folder");
        if (auto owned = ownedFiles(m_target)) {
            m_owned = std::move(*owned);
            return true;
        }
        std::string example;
        for (const auto &entry : fs::directory_iterator(m_target, ec)) {
            example = entry.path().filename().string();
            break;
        }
        if (example.empty() || m_options.force)
            return true;
        return fail(m_target.string() + " is not empty and is not a Cleave export (it holds '"
                    + example + "' and no " + exportOwnedList
                    + "); choose an empty folder, or force the export (--force) to add "
                      "Cleave's files beside the ones there");
    }

    /// Links (or copies) into the new folder every entry of the old one that Cleave did not
    /// write and does not write now: the user's files survive the swap.
    bool carryUserFiles()
    {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(m_target, ec)) {
            const std::string name = entry.path().filename().string();
            if (name == exportOwnedList || m_owned.contains(name))
                continue;
            if (m_newFiles.contains(name)) // even --force never replaces a user's file
                return discard("the export would overwrite '" + name
                               + "', which Cleave did not write; move or rename it (Cleave "
                                 "replaces only the files its .cleave-export lists, even with "
                                 "--force)");
            std::error_code linkError;
            const fs::file_status status = entry.symlink_status(linkError);
            if (fs::is_directory(status) || fs::is_symlink(status))
                linkError = std::make_error_code(std::errc::not_supported);
            else // files, FIFOs, sockets, devices: the same inode under the new folder
                fs::create_hard_link(entry.path(), m_tmp / name, linkError);
            if (linkError && !fs::is_directory(status) && !fs::is_symlink(status)
                && !fs::is_regular_file(status)) {
                // Never opened (a FIFO would block): kept where a link cannot be made.
                if (fs::is_fifo(status) && ::mkfifo((m_tmp / name).c_str(), 0600) == 0)
                    continue;
                m_diagnostics.push_back(Diagnostic::make(
                    Severity::Warning, "export.not_kept",
                    "'" + name + "' of " + m_target.string()
                        + " is a socket or device file that cannot be linked into the new "
                          "folder ("
                        + linkError.message() + "); it is not kept"));
                continue;
            }
            if (linkError) {
                std::error_code copyError;
                fs::copy(entry.path(), m_tmp / name,
                         fs::copy_options::recursive | fs::copy_options::copy_symlinks, copyError);
                if (copyError)
                    return discard("cannot keep '" + name + "' of " + m_target.string() + ": "
                                   + copyError.message());
            }
        }
        if (ec)
            return discard("cannot list " + m_target.string() + ": " + ec.message());
        return true;
    }

    bool moveIntoPlace()
    {
        std::error_code ec;
        fs::rename(m_tmp, m_target, ec);
        if (ec)
            return discard("cannot move the export into " + m_target.string() + ": "
                           + ec.message());
        syncFolder(m_target.parent_path());
        return step("swapped");
    }

    bool replaceTarget()
    {
        std::error_code ec;
        if (!m_options.noExchange && exchange(m_tmp, m_target)) {
            // m_tmp now holds the previous export.
            syncFolder(m_target.parent_path());
            if (!step("swapped"))
                return false;
            fs::remove_all(m_tmp, ec);
            return step("removed-old");
        }
        if (!m_options.noExchange && errno != ENOSYS && errno != EINVAL)
            return discard("cannot replace " + m_target.string() + ": " + std::strerror(errno));
        const fs::path old = freshSibling(m_target, "old");
        fs::rename(m_target, old, ec);
        if (ec)
            return discard("cannot replace " + m_target.string() + ": " + ec.message());
        if (!step("moved-old"))
            return false;
        fs::rename(m_tmp, m_target, ec);
        if (ec) {
            std::error_code back;
            fs::rename(old, m_target, back);
            if (back)
                return fail("cannot move the export into " + m_target.string() + " (" + ec.message()
                            + "); the previous export is in " + old.string()
                            + " and the new one in " + m_tmp.string());
            return discard("cannot move the export into " + m_target.string() + ": "
                           + ec.message());
        }
        syncFolder(m_target.parent_path());
        if (!step("swapped"))
            return false;
        fs::remove_all(old, ec);
        m_diagnostics.push_back(Diagnostic::make(
            Severity::Info, "export.fallback_swap",
            "this file system cannot exchange two folders in one step (renameat2 "
            "RENAME_EXCHANGE), so "
                + m_target.string()
                + " was replaced by two renames; had the export been interrupted between "
                  "them, the previous export would have been in "
                + old.filename().string()
                + " beside it, and the next export (or verify) puts it back"));
        return step("removed-old");
    }

    fs::path m_target;
    const ExportOptions &m_options;
    std::vector<Diagnostic> &m_diagnostics;
    fs::path m_tmp;
    bool m_targetExists = false;
    std::set<std::string> m_owned;
    std::set<std::string> m_newFiles;
};

} // namespace

bool writeExportFolder(const std::vector<std::pair<std::string, std::string>> &files,
                       const std::string &dir, const ExportOptions &options,
                       std::vector<Diagnostic> &diagnostics)
{
    fs::path target = fs::path(dir).lexically_normal();
    if (target.filename().empty())
        target = target.parent_path();
    if (target.empty() || target == "." || target == "..") {
        diagnostics.push_back(
            ioError("no output folder given (or '" + dir + "', which cannot be replaced)"));
        return false;
    }
    if (target.parent_path().empty())
        target = fs::path(".") / target;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    FolderLock lock;
    if (!lock.take(target, diagnostics))
        return false;
    return FolderWriter(target, options, diagnostics).run(files);
}

std::string interruptedExportOf(const std::string &dir)
{
    fs::path target = fs::path(dir).lexically_normal();
    if (target.filename().empty())
        target = target.parent_path();
    if (target.empty() || target == "." || target == "..")
        return {};
    if (target.parent_path().empty())
        target = fs::path(".") / target;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(target, ec)))
        return {};
    const std::vector<fs::path> old = leftovers(target, "old");
    return old.size() == 1 ? old.front().string() : std::string();
}

} // namespace cleave
