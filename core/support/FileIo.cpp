// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/FileIo.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cleave {

std::optional<std::string> readRegularFile(const std::string &path, std::uintmax_t maxBytes,
                                           std::string &error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec); // follows symbolic links
    if (ec || !fs::exists(status)) {
        error = "no such file";
        return std::nullopt;
    }
    if (!fs::is_regular_file(status)) {
        error = fs::is_directory(status) ? "is a folder, not a file"
                                         : "is not a regular file (a device, FIFO or socket)";
        return std::nullopt;
    }
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) {
        error = "cannot read its size: " + ec.message();
        return std::nullopt;
    }
    if (size > maxBytes) {
        error = "is " + std::to_string(size >> 20) + " MiB; Cleave reads files up to "
            + std::to_string(maxBytes >> 20) + " MiB";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot be opened: " + std::string(std::strerror(errno));
        return std::nullopt;
    }
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    bytes.resize(static_cast<std::size_t>(in.gcount())); // the file may have shrunk meanwhile
    if (in.bad()) {
        error = "read error";
        return std::nullopt;
    }
    return bytes;
}

std::optional<std::string> readFile(const std::string &path)
{
    std::string ignored;
    return readRegularFile(path, maxReadFileBytes, ignored);
}

bool writeFileAtomically(const std::string &path, std::string_view content, std::string *error)
{
    const std::string temporary = path + ".tmp";
    const auto failed = [&](const std::string &what, int code) {
        if (error)
            *error = what + ": " + std::strerror(code); // the cause: a full disk, a quota, ...
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        return false;
    };
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int code = errno;
        if (error)
            *error = "cannot write " + temporary + ": " + std::strerror(code);
        return false;
    }
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int code = n < 0 ? errno : EIO;
            ::close(fd);
            return failed("cannot write " + path, code);
        }
        written += static_cast<std::size_t>(n);
    }
    // On disk before the rename publishes it: a power cut must not leave an empty file.
    if (::fsync(fd) != 0) {
        const int code = errno;
        ::close(fd);
        return failed("cannot write " + path, code);
    }
    if (::close(fd) != 0)
        return failed("cannot write " + path, errno);
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        if (error)
            *error = "cannot replace " + path + ": " + ec.message();
        std::filesystem::remove(temporary, ec);
        return false;
    }
    return true;
}

} // namespace cleave
