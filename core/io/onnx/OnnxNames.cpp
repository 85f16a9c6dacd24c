// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/onnx/OnnxNames.h"

#include "core/graph/NodeText.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

namespace cleave::onnxio {

std::vector<std::string> nodeKeys(const onnx::GraphProto &graph)
{
    std::unordered_set<std::string> taken;
    for (const auto &input : graph.input())
        taken.insert(input.name());
    for (const auto &init : graph.initializer())
        taken.insert(init.name());
    std::unordered_map<std::string, int> unnamed;
    std::vector<std::string> keys;
    keys.reserve(static_cast<std::size_t>(graph.node_size()));
    for (const auto &node : graph.node()) {
        std::string key = node.name();
        if (key.empty())
            key = node.op_type() + "_" + std::to_string(unnamed[node.op_type()]++);
        keys.push_back(text::uniqueKey(std::move(key), taken));
    }
    return keys;
}

std::string dtypeName(int elemType)
{
    switch (elemType) {
    case onnx::TensorProto::FLOAT:
        return "float32";
    case onnx::TensorProto::UINT8:
        return "uint8";
    case onnx::TensorProto::INT8:
        return "int8";
    case onnx::TensorProto::UINT16:
        return "uint16";
    case onnx::TensorProto::INT16:
        return "int16";
    case onnx::TensorProto::INT32:
        return "int32";
    case onnx::TensorProto::INT64:
        return "int64";
    case onnx::TensorProto::STRING:
        return "string";
    case onnx::TensorProto::BOOL:
        return "bool";
    case onnx::TensorProto::FLOAT16:
        return "float16";
    case onnx::TensorProto::DOUBLE:
        return "float64";
    case onnx::TensorProto::UINT32:
        return "uint32";
    case onnx::TensorProto::UINT64:
        return "uint64";
    case onnx::TensorProto::COMPLEX64:
        return "complex64";
    case onnx::TensorProto::COMPLEX128:
        return "complex128";
    case onnx::TensorProto::BFLOAT16:
        return "bfloat16";
    default:
        return "unknown";
    }
}

std::string opName(const onnx::NodeProto &node)
{
    const std::string &domain = node.domain();
    if (domain.empty() || domain == "ai.onnx")
        return node.op_type();
    return domain + "." + node.op_type();
}

ExternalData externalDataOf(const onnx::TensorProto &tensor)
{
    ExternalData data;
    for (const auto &entry : tensor.external_data()) {
        if (entry.key() == "location")
            data.location = entry.value();
        else if (entry.key() == "offset")
            data.offset = std::atoll(entry.value().c_str());
        else if (entry.key() == "length")
            data.length = std::atoll(entry.value().c_str());
    }
    return data;
}

std::optional<std::string> resolveExternalData(const std::string &modelFolder,
                                               const std::string &location, std::string &problem)
{
    namespace fs = std::filesystem;
    if (location.empty()) {
        problem = "names no file";
        return std::nullopt;
    }
    const fs::path relative(location);
    if (location.find('\0') != std::string::npos || relative.is_absolute()
        || relative.has_root_path()) {
        problem = "is an absolute path; external data must lie in the model's folder";
        return std::nullopt;
    }
    for (const fs::path &part : relative) {
        if (part == "..") {
            problem = "leaves the model's folder ('..'); external data must lie in it";
            return std::nullopt;
        }
    }
    std::error_code ec;
    const fs::path folder = fs::canonical(modelFolder.empty() ? "." : modelFolder, ec);
    if (ec) {
        problem = "cannot be resolved: the model's folder is unreadable";
        return std::nullopt;
    }
    const fs::path file = fs::canonical(folder / relative, ec);
    if (ec) {
        problem = "does not exist in the model's folder";
        return std::nullopt;
    }
    // Component-wise prefix test: a symlink may point anywhere.
    const auto [end, rest] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
    if (end != folder.end()) {
        problem = "resolves (through a symbolic link) to " + file.string()
            + ", outside the model's folder";
        return std::nullopt;
    }
    if (!fs::is_regular_file(file, ec)) {
        problem = "is not a regular file";
        return std::nullopt;
    }
    return file.string();
}

} // namespace cleave::onnxio
