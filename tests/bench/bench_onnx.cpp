// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: a ResNet-like ONNX model of about 10k nodes (Conv / Relu / Add residual blocks with
// small weights), generated with the libonnx protobuf classes, is imported (importBytes), cut
// into three partitions and exported with every artefact (mod<k>.onnx, pipeline_config.json,
// partitions.json, build_pipeline.py), then the export is verified. Prints a table and one
// JSON line.
#include "core/export/onnx/OnnxVerify.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace cleave;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kChannels = 4;

void addTensorValue(onnx::ValueInfoProto &v, const std::string &name)
{
    v.set_name(name);
    auto *t = v.mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int d : { 1, kChannels, 8, 8 })
        t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto &addNode(onnx::GraphProto &g, const std::string &op, const std::string &name,
                         std::initializer_list<std::string> inputs)
{
    onnx::NodeProto &n = *g.add_node();
    n.set_op_type(op);
    n.set_name(name);
    for (const std::string &in : inputs)
        n.add_input(in);
    n.add_output(name);
    return n;
}

std::string conv(onnx::GraphProto &g, const std::string &name, const std::string &x, int seed)
{
    onnx::TensorProto &w = *g.add_initializer();
    w.set_name(name + ".weight");
    w.set_data_type(onnx::TensorProto::FLOAT);
    for (int d : { kChannels, kChannels, 3, 3 })
        w.add_dims(d);
    for (int i = 0; i < kChannels * kChannels * 9; ++i)
        w.add_float_data(static_cast<float>((i * 7 + seed) % 13 - 6) * 0.01F);
    onnx::NodeProto &n = addNode(g, "Conv", name, { x, w.name() });
    auto attr = [&](const char *a, std::initializer_list<std::int64_t> v) {
        onnx::AttributeProto &p = *n.add_attribute();
        p.set_name(a);
        p.set_type(onnx::AttributeProto::INTS);
        for (std::int64_t x : v)
            p.add_ints(x);
    };
    attr("kernel_shape", { 3, 3 });
    attr("pads", { 1, 1, 1, 1 });
    return name;
}

/// Residual blocks Conv → Relu → Conv → Add(skip) → Relu (5 nodes each) up to `targetNodes`.
std::string resnetLike(std::size_t targetNodes, std::size_t &nodes, std::size_t &blocks)
{
    onnx::ModelProto model;
    model.set_ir_version(7);
    model.set_producer_name("bench_onnx");
    onnx::OperatorSetIdProto &opset = *model.add_opset_import();
    opset.set_domain("");
    opset.set_version(13);
    onnx::GraphProto &g = *model.mutable_graph();
    g.set_name("resnet_like");
    addTensorValue(*g.add_input(), "input");
    std::string x = "input";
    blocks = 0;
    while (static_cast<std::size_t>(g.node_size()) + 5 <= targetNodes) {
        const std::string p = "b" + std::to_string(blocks);
        const std::string c0 = conv(g, p + ".conv0", x, static_cast<int>(blocks));
        addNode(g, "Relu", p + ".relu0", { c0 });
        const std::string c1 = conv(g, p + ".conv1", p + ".relu0", static_cast<int>(blocks) + 1);
        addNode(g, "Add", p + ".add", { c1, x });
        addNode(g, "Relu", p + ".relu1", { p + ".add" });
        x = p + ".relu1";
        ++blocks;
    }
    addTensorValue(*g.add_output(), x);
    nodes = static_cast<std::size_t>(g.node_size());
    return model.SerializeAsString();
}

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

} // namespace

int main()
{
    std::size_t nodes = 0;
    std::size_t blocks = 0;
    auto t0 = Clock::now();
    const std::string bytes = resnetLike(10000, nodes, blocks);
    const double generateMs = msSince(t0);

    namespace fs = std::filesystem;
    const fs::path root
        = fs::temp_directory_path() / ("cleave_bench_onnx_" + std::to_string(::getpid()));
    fs::create_directories(root);
    const std::string modelPath = (root / "resnet_like.onnx").string();
    {
        std::ofstream out(modelPath, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

    t0 = Clock::now();
    ImportResult imported = importBytes(bytes, modelPath);
    const double importMs = msSince(t0);
    if (!imported.ok()) {
        std::fprintf(stderr, "import failed: %s\n", imported.firstError().c_str());
        return 1;
    }
    const Graph &graph = *imported.graph;

    t0 = Clock::now();
    PartitionPlan plan(graph);
    plan.cutAfterOps({ { "Add", blocks / 3 }, { "Add", 2 * blocks / 3 } });
    const BoundaryTable boundary = computeBoundary(plan);
    const double planMs = msSince(t0);

    ExportOptions options;
    options.moduleFormat = "onnx";
    const std::string dir = (root / "export").string();
    t0 = Clock::now();
    const ExportResult exported = exportPartitions(plan, boundary, options, dir);
    const double exportMs = msSince(t0);
    if (!exported.ok) {
        for (const Diagnostic &d : exported.diagnostics)
            std::fprintf(stderr, "%s\n", d.toString().c_str());
        return 1;
    }
    std::uintmax_t exportBytes = 0;
    for (const std::string &f : exported.files)
        exportBytes += fs::file_size(fs::path(dir) / f);

    t0 = Clock::now();
    const VerifyResult verified = verifyOnnxExport(dir);
    const double verifyMs = msSince(t0);

    std::printf("ONNX model: %zu nodes (%zu residual blocks), %zu bytes\n", nodes, blocks,
                bytes.size());
    std::printf("  generate              %9.1f ms\n", generateMs);
    std::printf("  import (importBytes)  %9.1f ms  (%zu graph nodes)\n", importMs,
                graph.nodeCount());
    std::printf("  plan + boundary       %9.1f ms  (%zu partitions)\n", planMs,
                plan.partitionCount());
    std::printf("  export (all files)    %9.1f ms  (%zu files, %ju bytes)\n", exportMs,
                exported.files.size(), exportBytes);
    std::printf("  verify                %9.1f ms  (%s)\n", verifyMs,
                verified.ok ? "recomposes the source" : verified.firstDifference.c_str());
    std::printf(
        "{\"bench\": \"onnx\", \"nodes\": %zu, \"model_bytes\": %zu, \"import_ms\": %.1f, "
        "\"plan_ms\": %.1f, \"export_ms\": %.1f, \"export_files\": %zu, \"export_bytes\": %ju, "
        "\"verify_ms\": %.1f, \"verify_ok\": %s}\n",
        nodes, bytes.size(), importMs, planMs, exportMs, exported.files.size(), exportBytes,
        verifyMs, verified.ok ? "true" : "false");
    std::error_code ec;
    fs::remove_all(root, ec);
    return verified.ok ? 0 : 1;
}
