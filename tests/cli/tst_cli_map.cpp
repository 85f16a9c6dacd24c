// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary: `map` (graph.json kernels onto Relay ops), its JSON and exit
// codes. The mapping itself is tested in tests/core/tst_kernelmapping.cpp.
#include "CliRunner.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <string>

namespace {

using cleave::test::runCliBinary;

const std::string mapDir = CLEAVE_TESTDATA_DIR "/map/";

} // namespace

class TestCliMap : public QObject
{
    Q_OBJECT

private slots:
    void mapJson();
};

void TestCliMap::mapJson()
{
    const auto run = runCliBinary(
        { QStringLiteral("map"), QString::fromStdString(mapDir + "residual_inception.graph.json"),
          QString::fromStdString(mapDir + "residual_inception.relay"), QStringLiteral("--json") });
    QCOMPARE(run.exitCode, 0);
    const auto j = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(j["matched"].get<int>(), 9);
    QCOMPARE(j["total"].get<int>(), 9);
    QCOMPARE(j["complete"].get<bool>(), true);
    const auto &k = j["kernels"][1];
    QCOMPARE(k["name"].get<std::string>(),
             std::string("tvmgen_default_fused_nn_conv2d_add_add_nn_relu"));
    QCOMPARE(k["node_index"].get<int>(), 10);
    QCOMPARE(k["entries"].dump(), std::string("[10,11]"));
    QCOMPARE(k["ops"].dump(), std::string(R"(["nn.conv2d","add","add","nn.relu"])"));
    QCOMPARE(k["relay_nodes"].dump(), std::string(R"(["%3","%4","%5","%6"])"));

    // Models the wrong way round, or a missing file, are bad input.
    const auto swapped = runCliBinary(
        { QStringLiteral("map"), QString::fromStdString(mapDir + "residual_inception.relay"),
          QString::fromStdString(mapDir + "residual_inception.relay") });
    QCOMPARE(swapped.exitCode, 2);
    QVERIFY(swapped.err.contains("expected a TVM graph.json"));
}

QTEST_APPLESS_MAIN(TestCliMap)
#include "tst_cli_map.moc"
