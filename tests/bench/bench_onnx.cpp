// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Benchmark: a ResNet-like ONNX model of about 10k nodes (Conv / Relu / Add residual blocks with
// small weights), generated with the libonnx protobuf classes, is imported (importBytes), cut
// into three partitions and exported with every artefact (mod<k>.onnx, pipeline_config.json,
// partitions.json, build_pipeline.py), then the export is verified. Then the import memory of a
// weight-heavy model with its weights inline and as external data (measureWeightHeavyImports).
// Prints tables and JSON lines.
#include "BenchOnnx.h"
#include "ImportBench.h"
#include "core/export/onnx/OnnxVerify.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <malloc.h>
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

// Issue 33: "ONNX import memory <= 1.2x the file size for models with external data (weights
// read lazily)". The weight-heavy ViT-B-sized model (10 blocks, 330 MB of weights) written
// twice, weights inline and as external data, each opened from disk as the editor opens it
// (importFile): the growth of the resident set's high-water mark during the import (on a
// trimmed heap, nothing of the model in memory before), against the model's bytes on disk
// (.onnx plus .data) and against the .onnx file alone.
void measureWeightHeavyImports(const std::filesystem::path &root)
{
    namespace fs = std::filesystem;
    constexpr int layers = 10;
    std::printf("weight-heavy ONNX model (%d blocks), opened from disk (importFile):\n", layers);
    for (const bool external : { false, true }) {
        const std::string path
            = (root / (external ? "vit_external.onnx" : "vit_inline.onnx")).string();
        const std::int64_t total = bench::writeWeightHeavyOnnx(path, layers, external);
        if (total <= 0) {
            std::printf("  could not write %s\n", path.c_str());
            continue;
        }
        const auto onnxBytes = static_cast<double>(fs::file_size(path));
        malloc_trim(0);
        bench::resetPeak();
        const double before = bench::residentKb();
        const auto t0 = Clock::now();
        std::size_t nodes = 0;
        bool ok = false;
        {
            const ImportResult r = importFile(path);
            ok = r.ok();
            nodes = ok ? r.graph->nodeCount() : 0;
        }
        const double ms = msSince(t0);
        const double growth = (bench::peakKb() - before) * 1024.0;
        std::printf("  %-8s  .onnx %8.1f MB, total %8.1f MB, %zu nodes, %7.1f ms, peak RSS "
                    "+%7.1f MB = %.3fx the model, %.2fx the .onnx%s\n",
                    external ? "external" : "inline", onnxBytes / 1e6,
                    static_cast<double>(total) / 1e6, nodes, ms, growth / 1e6,
                    growth / static_cast<double>(total), growth / onnxBytes,
                    ok ? "" : " (import failed)");
        std::printf("{\"bench\": \"onnx_import_memory\", \"external\": %s, \"onnx_bytes\": "
                    "%.0f, \"total_bytes\": %lld, \"nodes\": %zu, \"import_ms\": %.1f, "
                    "\"peak_growth_bytes\": %.0f, \"ok\": %s}\n",
                    external ? "true" : "false", onnxBytes, static_cast<long long>(total), nodes,
                    ms, growth, ok ? "true" : "false");
        std::error_code ec;
        fs::remove(path, ec);
        fs::remove(path + ".data", ec);
    }
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
    measureWeightHeavyImports(root);
    std::error_code ec;
    fs::remove_all(root, ec);
    return verified.ok ? 0 : 1;
}
