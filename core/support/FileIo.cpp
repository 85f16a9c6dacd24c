// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/support/FileIo.h"

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
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.close();
        if (!out) {
            if (error)
                *error = "cannot write " + temporary;
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            return false;
        }
    }
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
