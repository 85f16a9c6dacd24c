// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark helper: a weight-heavy ONNX model written with the libonnx protobuf classes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace cleave::bench {

/// Writes to `path` a transformer-shaped ONNX model whose weights dominate its size, like
/// ViT-B/16 exported from PyTorch (330 MB): `layers` blocks over tokens 1×197×768, each
/// x → MatMul 768×2304 → Relu → MatMul 2304×768 → Add x → MatMul 768×3072 → Relu → MatMul
/// 3072×768 → Add, every weight an initializer in raw_data (33 MB a block). With
/// `externalData`, the weights go to `<path>.data` instead, one after the other, each
/// initializer naming its location, offset and length (as onnx.save_model(...,
/// save_as_external_data=True) writes them). Returns the bytes written (both files), 0 on
/// failure.
inline std::int64_t writeWeightHeavyOnnx(const std::string &path, int layers,
                                         bool externalData = false)
{
    std::ofstream data;
    std::int64_t dataBytes = 0;
    const std::string dataName = path.substr(path.find_last_of('/') + 1) + ".data";
    if (externalData) {
        data.open(path + ".data", std::ios::binary);
        if (!data)
            return 0;
    }
    constexpr std::int64_t tokens = 197;
    constexpr std::int64_t width = 768;
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("cleave-bench");
    model.add_opset_import()->set_version(17);
    onnx::GraphProto &g = *model.mutable_graph();
    g.set_name("weight_heavy");
    const auto valueInfo = [](onnx::ValueInfoProto &v, const std::string &name) {
        v.set_name(name);
        auto *t = v.mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        for (std::int64_t d : { std::int64_t(1), tokens, width })
            t->mutable_shape()->add_dim()->set_dim_value(d);
    };
    valueInfo(*g.add_input(), "tokens");
    int counter = 0;
    const auto weight = [&](std::int64_t rows, std::int64_t cols) {
        onnx::TensorProto &w = *g.add_initializer();
        w.set_name("w" + std::to_string(counter++));
        w.set_data_type(onnx::TensorProto::FLOAT);
        w.add_dims(rows);
        w.add_dims(cols);
        std::string raw(static_cast<std::size_t>(rows * cols) * sizeof(float), '\0');
        for (std::size_t i = 0; i < raw.size(); i += sizeof(float)) {
            const float v = static_cast<float>(static_cast<int>((i / 4) % 17) - 8) * 1e-3F;
            std::memcpy(raw.data() + i, &v, sizeof v);
        }
        if (!externalData) {
            w.set_raw_data(std::move(raw));
            return w.name();
        }
        w.set_data_location(onnx::TensorProto::EXTERNAL);
        const auto entry = [&w](const char *key, const std::string &value) {
            onnx::StringStringEntryProto &e = *w.add_external_data();
            e.set_key(key);
            e.set_value(value);
        };
        entry("location", dataName);
        entry("offset", std::to_string(dataBytes));
        entry("length", std::to_string(raw.size()));
        data.write(raw.data(), static_cast<std::streamsize>(raw.size()));
        dataBytes += static_cast<std::int64_t>(raw.size());
        return w.name();
    };
    const auto node = [&](const char *op, std::initializer_list<std::string> inputs) {
        onnx::NodeProto &n = *g.add_node();
        n.set_op_type(op);
        n.set_name(std::string(op) + "_" + std::to_string(counter));
        for (const std::string &in : inputs)
            n.add_input(in);
        n.add_output("t" + std::to_string(counter++));
        return n.output(0);
    };
    std::string x = "tokens";
    for (int l = 0; l < layers; ++l) {
        std::string h = node("MatMul", { x, weight(width, 3 * width) });
        h = node("Relu", { h });
        h = node("MatMul", { h, weight(3 * width, width) });
        x = node("Add", { h, x });
        h = node("MatMul", { x, weight(width, 4 * width) });
        h = node("Relu", { h });
        h = node("MatMul", { h, weight(4 * width, width) });
        x = node("Add", { h, x });
    }
    valueInfo(*g.add_output(), x);
    std::ofstream out(path, std::ios::binary);
    if (!out || !model.SerializeToOstream(&out))
        return 0;
    out.close();
    if (externalData) {
        data.close();
        if (!data)
            return 0;
    }
    return static_cast<std::int64_t>(model.ByteSizeLong()) + dataBytes;
}

} // namespace cleave::bench
