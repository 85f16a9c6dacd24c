// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/TensorPayload.h"

#include "core/support/Base64.h"

#include <cstdint>
#include <cstring>
#include <optional>

namespace cleave {

namespace {

constexpr std::uint64_t ndarrayMagic = 0xDD5E40F096B4A13FULL;
constexpr std::int32_t cpuDevice = 1; // kDLCPU: TVM saves and loads only CPU tensors

/// Little-endian reads from the decoded payload, in order; nullopt past its end.
class Reader
{
public:
    explicit Reader(std::string_view bytes)
        : m_bytes(bytes)
    {
    }

    template <typename T>
    std::optional<T> next()
    {
        if (m_bytes.size() - m_pos < sizeof(T))
            return std::nullopt;
        T value;
        std::memcpy(&value, m_bytes.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return value;
    }

    [[nodiscard]] std::size_t left() const { return m_bytes.size() - m_pos; }

private:
    std::string_view m_bytes;
    std::size_t m_pos = 0;
};

} // namespace

std::string tensorPayloadProblem(std::string_view base64)
{
    const std::optional<std::string> bytes = decodeBase64(base64);
    if (!bytes)
        return "the payload is not base64";
    Reader in(*bytes);
    const auto magic = in.next<std::uint64_t>();
    const auto reserved = in.next<std::uint64_t>();
    const auto deviceType = in.next<std::int32_t>();
    const auto deviceId = in.next<std::int32_t>();
    const auto ndim = in.next<std::int32_t>();
    const auto code = in.next<std::uint8_t>();
    const auto bits = in.next<std::uint8_t>();
    const auto lanes = in.next<std::uint16_t>();
    if (!magic || !reserved || !deviceType || !deviceId || !ndim || !code || !bits || !lanes)
        return "the payload ends in its header (" + std::to_string(bytes->size()) + " bytes)";
    if (*magic != ndarrayMagic)
        return "the payload is not a TVM tensor (no NDArray magic number)";
    if (*deviceType != cpuDevice)
        return "the payload's device type is " + std::to_string(*deviceType)
            + ", but TVM loads only CPU tensors (1)";
    if (*ndim < 0 || static_cast<std::size_t>(*ndim) > in.left() / 8)
        return "the payload's rank " + std::to_string(*ndim) + " does not fit its "
            + std::to_string(bytes->size()) + " bytes";
    if (*bits == 0 || *lanes == 0)
        return "the payload's dtype has " + std::to_string(*bits) + " bits and "
            + std::to_string(*lanes) + " lanes";
    const std::uint64_t elementBytes = (std::uint64_t { *bits } * *lanes + 7) / 8;
    std::uint64_t bytesNeeded = elementBytes;
    bool overflow = false;
    for (std::int32_t d = 0; d < *ndim; ++d) {
        const std::int64_t dim = *in.next<std::int64_t>(); // fits: checked against left() above
        if (dim < 0)
            return "the payload's dim " + std::to_string(d) + " is " + std::to_string(dim);
        overflow
            = overflow || (dim != 0 && bytesNeeded > UINT64_MAX / static_cast<std::uint64_t>(dim));
        bytesNeeded = overflow ? UINT64_MAX : bytesNeeded * static_cast<std::uint64_t>(dim);
    }
    const auto declared = in.next<std::int64_t>();
    if (!declared)
        return "the payload ends before its data size";
    if (overflow || *declared < 0 || static_cast<std::uint64_t>(*declared) != bytesNeeded)
        return "the payload declares " + std::to_string(*declared)
            + " data bytes, but its shape and dtype need "
            + (overflow ? std::string("more than 2^64") : std::to_string(bytesNeeded));
    if (in.left() < static_cast<std::uint64_t>(*declared))
        return "the payload declares " + std::to_string(*declared) + " data bytes but holds "
            + std::to_string(in.left());
    return {};
}

} // namespace cleave
