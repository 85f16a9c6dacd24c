// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/onnx/OnnxNames.h"

#include <cstdlib>
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
        if (taken.count(key)) {
            int k = 2;
            while (taken.count(key + "#" + std::to_string(k)))
                ++k;
            key += "#" + std::to_string(k);
        }
        taken.insert(key);
        keys.push_back(std::move(key));
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

} // namespace cleave::onnxio
