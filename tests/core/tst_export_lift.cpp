// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// --lift-constants on constants that live inside called functions: closed functions (globals,
// Primitive=1 fn literals) take them as extra parameters passed at every call, scopes and
// closures read @main's parameter, and what cannot be lifted keeps a warning with its reason.
// Every expected value below is derived by hand from the fixtures (tests/data/lift/README.md).
#include "TestSupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"
#include "core/validation/Validation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

using namespace cleave;
using namespace cleave::test;

namespace {

QString fixture(const char *name)
{
    return QStringLiteral(CLEAVE_TESTDATA_DIR "/lift/") + QLatin1String(name);
}

/// The parameter names of a function, `%` included.
std::vector<std::string> paramNames(const Graph &g, FunctionId f)
{
    std::vector<std::string> names;
    if (!f.isValid())
        return names;
    for (NodeId p : g.function(f).params)
        names.push_back(g.node(p).name);
    return names;
}

/// The only `Primitive=1` fn literal of a module.
FunctionId primitiveLiteral(const Graph &g)
{
    for (std::size_t i = 0; i < g.functionCount(); ++i) {
        const Function &f = g.function(FunctionId(i));
        if (f.kind == Function::Kind::Literal && f.isPrimitive())
            return FunctionId(i);
    }
    return {};
}

/// The calls of function `f` in `g`, each as its arguments: the parameter name for a parameter,
/// "(value)" for anything computed.
std::vector<std::vector<std::string>> callsOf(const Graph &g, FunctionId f)
{
    std::vector<std::vector<std::string>> calls;
    for (const Node &n : g.nodes()) {
        if (n.kind != NodeKind::FunctionCall || n.callee != f)
            continue;
        std::vector<std::string> args;
        for (TensorRef in : n.inputs)
            args.push_back(g.node(in.node).kind == NodeKind::Input ? g.node(in.node).name
                                                                   : std::string("(value)"));
        calls.push_back(std::move(args));
    }
    return calls;
}

std::vector<std::vector<std::string>> callsOf(const Graph &g, const char *global)
{
    return callsOf(g, g.findFunction(global));
}

/// One lifted constant of the manifest, flattened for comparison.
std::string liftedEntry(const nlohmann::json &l)
{
    std::string s = "mod" + std::to_string(l["mod_idx"].get<int>()) + " "
        + l["parameter"].get<std::string>() + " <- " + l["source_ref"].get<std::string>() + " "
        + l["type"].get<std::string>();
    for (const auto &f : l.value("threaded_through", nlohmann::json::array()))
        s += " via " + f.get<std::string>();
    return s;
}

std::vector<std::string> liftedEntries(const QString &dir, bool withTypes = true)
{
    const auto manifest = nlohmann::json::parse(readAll(dir + QStringLiteral("/partitions.json")));
    std::vector<std::string> out;
    for (auto l : manifest["lifted_constants"]) {
        if (!withTypes)
            l["type"] = "";
        out.push_back(liftedEntry(l));
    }
    return out;
}

struct Export
{
    ExportResult result;
    QString dir;
};

/// Exports `path` cut after the first `cutOp` (no cut when null), with or without lifting, into
/// `tmp`.
Export exportCut(const QString &path, const char *cutOp, bool lift, const QTemporaryDir &tmp)
{
    Export e;
    const auto g = load(path);
    if (!g)
        return e;
    PartitionPlan plan(*g);
    if (cutOp) {
        plan.cutAfterOps({ { cutOp, 0 } });
        if (plan.partitionCount() != 2)
            return e;
    }
    e.dir = tmp.path() + (lift ? QStringLiteral("/lifted") : QStringLiteral("/plain"));
    ExportOptions options;
    options.liftConstants = lift;
    e.result = exportPartitions(plan, computeBoundary(plan), options, e.dir.toStdString());
    return e;
}

/// A module with a constant in an `if` branch and in a plain closure (same constant).
const char *scopeAndClosure = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %c: bool) -> Tensor[(1, 4), float32] {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 4), float32] */;
  %1 = if (%c) {
    add(%0, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
  } else {
    %0
  };
  %2 = fn (%y: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
    multiply(%y, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
  };
  %2(%1) /* ty=Tensor[(1, 4), float32] */
}
)";

/// A constant two calls deep (@main → @outer → @inner, and @main → @inner directly) and one in
/// a recursive global.
const char *transitive = R"(#[version = "0.0.5"]
def @inner(%v: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  add(%v, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
}

def @outer(%u: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  %0 = nn.relu(%u) /* ty=Tensor[(1, 4), float32] */;
  @inner(%0) /* ty=Tensor[(1, 4), float32] */
}

def @loop(%i: int32, %w: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  %0 = less(%i, 3 /* ty=int32 */) /* ty=bool */;
  if (%0) {
    %1 = multiply(%w, meta[relay.Constant][1] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */;
    %2 = add(%i, 1 /* ty=int32 */) /* ty=int32 */;
    @loop(%2, %1) /* ty=Tensor[(1, 4), float32] */
  } else {
    %w
  }
}

def @main(%x: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  %0 = nn.tanh(%x) /* ty=Tensor[(1, 4), float32] */;
  %1 = @outer(%0) /* ty=Tensor[(1, 4), float32] */;
  %2 = @inner(%1) /* ty=Tensor[(1, 4), float32] */;
  @loop(0 /* ty=int32 */, %2) /* ty=Tensor[(1, 4), float32] */
}
)";

/// meta[0] is used by @main and by @helper; the names const_0 (a @helper parameter) and const_1
/// (a global input) are taken already.
const char *sharedAndTaken = R"(#[version = "0.0.5"]
def @helper(%const_0: Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32] {
  multiply(%const_0, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
}

def @main(%x: Tensor[(1, 4), float32], %const_1: Tensor[(4), float32]) -> Tensor[(1, 4), float32] {
  %0 = nn.relu(%x) /* ty=Tensor[(1, 4), float32] */;
  %1 = add(%0, meta[relay.Constant][0] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */;
  %2 = @helper(%1) /* ty=Tensor[(1, 4), float32] */;
  %3 = add(%2, %const_1) /* ty=Tensor[(1, 4), float32] */;
  add(%3, meta[relay.Constant][1] /* ty=Tensor[(4), float32] */) /* ty=Tensor[(1, 4), float32] */
}
)";

/// Operator attributes that are meta references (as TVM prints arange's start/stop/step).
const char *attributeRefs = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {
  %0 = nn.relu(%x) /* ty=Tensor[(4), float32] */;
  %1 = arange(0f, 4f, 1f, start=meta[relay.Constant][0], stop=meta[relay.Constant][1], step=meta[relay.Constant][2], dtype="float32") /* ty=Tensor[(4), float32] */;
  add(%0, %1) /* ty=Tensor[(4), float32] */
}
)";

} // namespace

class TestExportLift : public QObject
{
    Q_OBJECT

private slots:
    void calleeConstantsBecomeParameters();
    void calleeConstantsWarnWithoutLifting();
    void functionValueKeepsItsConstant();
    void scopesAndClosuresReadMainParameter();
    void transitiveAndRecursiveCallers();
    void sharedConstantAndTakenNames();
    void attributeReferencesWarn();
    void realModelsWithCalleeConstants();
    void everyRelayModelLifts_data();
    void everyRelayModelLifts();
};

void TestExportLift::calleeConstantsBecomeParameters()
{
    QTemporaryDir tmp;
    const Export e = exportCut(fixture("callees.relay"), "nn.relu", true, tmp);
    QVERIFY(!e.dir.isEmpty());
    for (const Diagnostic &d : e.result.diagnostics)
        QVERIFY2(d.severity != Severity::Error, d.toString().c_str());
    QVERIFY(e.result.ok);
    // Everything is lifted, so the "cannot parse without #[metadata]" warning is gone.
    QVERIFY(withCode(e.result.diagnostics, "export.no_metadata").empty());

    std::vector<std::unique_ptr<Graph>> mods;
    for (int k = 0; k < 2; ++k) {
        const QString file = e.dir + QStringLiteral("/mod%1.relay").arg(k);
        const std::string text = readAll(file);
        QVERIFY2(text.find("meta[") == std::string::npos, text.c_str());
        mods.push_back(load(file)); // re-imports through the Relay importer
        QVERIFY2(mods.back(), text.c_str());
    }
    using Names = std::vector<std::string>;
    // mod0 (%0(%x), @helper twice, nn.relu): the fn literal's constant is used first.
    const Graph &m0 = *mods[0];
    QCOMPARE(paramNames(m0, m0.findFunction("main")), (Names { "%x", "%const_0", "%const_1" }));
    QCOMPARE(paramNames(m0, primitiveLiteral(m0)), (Names { "%p0", "%const_0" }));
    QCOMPARE(paramNames(m0, m0.findFunction("helper")), (Names { "%h", "%const_1" }));
    // Both calls of @helper pass @main's %const_1 (one parameter for the two call sites).
    QCOMPARE(callsOf(m0, "helper"),
             (std::vector<Names> { { "(value)", "%const_1" }, { "(value)", "%const_1" } }));
    QCOMPARE(callsOf(m0, primitiveLiteral(m0)), (std::vector<Names> { { "%x", "%const_0" } }));
    // mod1 (@helper, subtract): @helper's constant comes first, then @main's own.
    const Graph &m1 = *mods[1];
    QCOMPARE(paramNames(m1, m1.findFunction("main")),
             (Names { "%data_n_0", "%const_0", "%const_1" }));
    QCOMPARE(paramNames(m1, m1.findFunction("helper")), (Names { "%h", "%const_0" }));
    QCOMPARE(callsOf(m1, "helper"), (std::vector<Names> { { "%data_n_0", "%const_0" } }));

    QCOMPARE(liftedEntries(e.dir),
             (Names { "mod0 const_0 <- meta[relay.Constant][0] Tensor[(4), float32] via fn %0 "
                      "in @main",
                      "mod0 const_1 <- meta[relay.Constant][1] Tensor[(4), float32] via @helper",
                      "mod1 const_0 <- meta[relay.Constant][1] Tensor[(4), float32] via @helper",
                      "mod1 const_1 <- meta[relay.Constant][2] Tensor[(1, 4), float32]" }));
    // The manifest's module inputs carry them as for @main's own constants.
    const auto manifest
        = nlohmann::json::parse(readAll(e.dir + QStringLiteral("/partitions.json")));
    const auto &inputs = manifest["partitions"][1]["inputs"];
    QCOMPARE(inputs.size(), std::size_t(3));
    QCOMPARE(inputs[1]["name"].get<std::string>(), std::string("const_0"));
    QCOMPARE(inputs[1]["from"]["constant"].get<std::string>(),
             std::string("meta[relay.Constant][1]"));

    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportLift::calleeConstantsWarnWithoutLifting()
{
    QTemporaryDir tmp;
    const Export e = exportCut(fixture("callees.relay"), "nn.relu", false, tmp);
    QVERIFY(e.result.ok);
    const std::vector<Diagnostic> warnings = withCode(e.result.diagnostics, "export.no_metadata");
    QCOMPARE(warnings.size(), std::size_t(2));
    // mod0 holds meta[0] (fn literal) and meta[1] (@helper); mod1 meta[1] and meta[2].
    QVERIFY2(warnings[0].message.starts_with("mod0.relay references 2 constant(s)"),
             warnings[0].message.c_str());
    QVERIFY(warnings[0].message.find("export with --lift-constants") != std::string::npos);
    QVERIFY2(warnings[1].message.starts_with("mod1.relay references 2 constant(s)"),
             warnings[1].message.c_str());
}

void TestExportLift::functionValueKeepsItsConstant()
{
    QTemporaryDir tmp;
    const Export e = exportCut(fixture("function_value.relay"), "nn.relu", true, tmp);
    QVERIFY(e.result.ok);
    const std::vector<Diagnostic> warnings = withCode(e.result.diagnostics, "export.no_metadata");
    QCOMPARE(warnings.size(), std::size_t(1));
    QCOMPARE(warnings[0].message,
             std::string("mod1.relay still references 1 constant(s) as meta[relay.Constant][i] "
                         "and the source model has no #[metadata] section, so tvm.parser.parse "
                         "cannot read mod1.relay: --lift-constants cannot lift them because "
                         "@scale is used as a function value (not only called), so it cannot "
                         "take the constant as an extra parameter"));
    const std::string mod1 = readAll(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(mod1.find("multiply(%s, meta[relay.Constant][0]") != std::string::npos, mod1.c_str());
    const auto m1 = load(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY(m1);
    QCOMPARE(paramNames(*m1, m1->findFunction("main")),
             (std::vector<std::string> { "%data_n_0", "%const_0" }));
    QCOMPARE(paramNames(*m1, m1->findFunction("scale")), (std::vector<std::string> { "%s" }));
    QCOMPARE(liftedEntries(e.dir),
             (std::vector<std::string> {
                 "mod1 const_0 <- meta[relay.Constant][1] Tensor[(4), float32]" }));
    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportLift::scopesAndClosuresReadMainParameter()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/scope.relay");
    QVERIFY(writeAll(path, scopeAndClosure));
    const Export e = exportCut(path, "nn.relu", true, tmp);
    QVERIFY(e.result.ok);
    QVERIFY(withCode(e.result.diagnostics, "export.no_metadata").empty());
    const std::string text = readAll(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY2(text.find("meta[") == std::string::npos, text.c_str());
    // The branch and the closure read @main's parameter; the closure keeps its one parameter.
    QVERIFY2(text.find("add(%data_n_0, %const_0)") != std::string::npos, text.c_str());
    QVERIFY2(text.find("fn (%y: Tensor[(1, 4), float32]) -> ") != std::string::npos, text.c_str());
    QVERIFY2(text.find("multiply(%y, %const_0)") != std::string::npos, text.c_str());
    const auto m1 = load(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY(m1);
    // The If reads %c first, then the cut tensor; the constant is appended.
    QCOMPARE(paramNames(*m1, m1->findFunction("main")),
             (std::vector<std::string> { "%c", "%data_n_0", "%const_0" }));
    QCOMPARE(liftedEntries(e.dir),
             (std::vector<std::string> {
                 "mod1 const_0 <- meta[relay.Constant][0] Tensor[(4), float32]" }));
    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportLift::transitiveAndRecursiveCallers()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/transitive.relay");
    QVERIFY(writeAll(path, transitive));
    const Export e = exportCut(path, "nn.tanh", true, tmp);
    QVERIFY(e.result.ok);
    QVERIFY(withCode(e.result.diagnostics, "export.no_metadata").empty());
    const auto m1 = load(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY(m1);
    using Names = std::vector<std::string>;
    // @outer only passes @inner's constant on; @loop passes its own to itself.
    QCOMPARE(paramNames(*m1, m1->findFunction("main")),
             (Names { "%data_n_0", "%const_0", "%const_1" }));
    QCOMPARE(paramNames(*m1, m1->findFunction("outer")), (Names { "%u", "%const_0" }));
    QCOMPARE(paramNames(*m1, m1->findFunction("inner")), (Names { "%v", "%const_0" }));
    QCOMPARE(paramNames(*m1, m1->findFunction("loop")), (Names { "%i", "%w", "%const_1" }));
    QCOMPARE(callsOf(*m1, "inner"),
             (std::vector<Names> { { "(value)", "%const_0" }, { "(value)", "%const_0" } }));
    QCOMPARE(callsOf(*m1, "outer"), (std::vector<Names> { { "%data_n_0", "%const_0" } }));
    QCOMPARE(callsOf(*m1, "loop"),
             (std::vector<Names> { { "(value)", "(value)", "%const_1" },
                                   { "(value)", "(value)", "%const_1" } }));
    QCOMPARE(liftedEntries(e.dir),
             (Names { "mod1 const_0 <- meta[relay.Constant][0] Tensor[(4), float32] via @inner "
                      "via @outer",
                      "mod1 const_1 <- meta[relay.Constant][1] Tensor[(4), float32] via @loop" }));
    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportLift::sharedConstantAndTakenNames()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/shared.relay");
    QVERIFY(writeAll(path, sharedAndTaken));
    const Export e = exportCut(path, "nn.relu", true, tmp);
    QVERIFY(e.result.ok);
    const auto m1 = load(e.dir + QStringLiteral("/mod1.relay"));
    QVERIFY(m1);
    using Names = std::vector<std::string>;
    // One parameter for meta[0] in @main and in @helper; const_0 and const_1 are taken, so the
    // lifted ones are const_0_ and const_1_.
    QCOMPARE(paramNames(*m1, m1->findFunction("main")),
             (Names { "%data_n_0", "%const_1", "%const_0_", "%const_1_" }));
    QCOMPARE(paramNames(*m1, m1->findFunction("helper")), (Names { "%const_0", "%const_0_" }));
    QCOMPARE(callsOf(*m1, "helper"), (std::vector<Names> { { "(value)", "%const_0_" } }));
    QCOMPARE(liftedEntries(e.dir, false),
             (Names { "mod1 const_0_ <- meta[relay.Constant][0]  via @helper",
                      "mod1 const_1_ <- meta[relay.Constant][1] " }));
    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

void TestExportLift::attributeReferencesWarn()
{
    QTemporaryDir tmp;
    const QString path = tmp.path() + QStringLiteral("/attrs.relay");
    QVERIFY(writeAll(path, attributeRefs));
    const Export e = exportCut(path, "nn.relu", true, tmp);
    QVERIFY(e.result.ok);
    const std::vector<Diagnostic> warnings = withCode(e.result.diagnostics, "export.no_metadata");
    QCOMPARE(warnings.size(), std::size_t(1));
    QCOMPARE(warnings[0].message,
             std::string("mod1.relay keeps 3 operator attribute(s) written as meta[...] (arange "
                         "start=meta[relay.Constant][0], arange stop=meta[relay.Constant][1], "
                         "arange step=meta[relay.Constant][2]) and the source model has no "
                         "#[metadata] section, so tvm.parser.parse cannot read mod1.relay: "
                         "--lift-constants cannot lift them because attributes are compile-time "
                         "values of the operator, not tensors a parameter can feed"));
}

void TestExportLift::realModelsWithCalleeConstants()
{
    // samples/byoc_dnnl_partitioned.relay (no #[metadata]): meta[0..5] are arguments inside
    // @tvmgen_default_dnnl_main_0, called before the nn.max_pool2d; meta[6..9] inside
    // @tvmgen_default_dnnl_main_2, called after it. @main itself has none.
    QTemporaryDir tmp;
    const Export e = exportCut(QStringLiteral(CLEAVE_SAMPLES_DIR "/byoc_dnnl_partitioned.relay"),
                               "nn.max_pool2d", true, tmp);
    QVERIFY(e.result.ok);
    QVERIFY(withCode(e.result.diagnostics, "export.no_metadata").empty());
    std::vector<std::string> expected;
    for (int i = 0; i < 10; ++i) {
        const int k = i < 6 ? 0 : 1;
        expected.push_back("mod" + std::to_string(k) + " const_" + std::to_string(k ? i - 6 : i)
                           + " <- meta[relay.Constant][" + std::to_string(i) + "]  via "
                           + (k ? "@tvmgen_default_dnnl_main_2" : "@tvmgen_default_dnnl_main_0"));
    }
    QCOMPARE(liftedEntries(e.dir, false), expected);
    for (int k = 0; k < 2; ++k) {
        const std::string text = readAll(e.dir + QStringLiteral("/mod%1.relay").arg(k));
        QVERIFY2(text.find("meta[") == std::string::npos, text.c_str());
    }
    const VerifyResult v = verifyExport(e.dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());

    // The corpus' MATCH BYOC dump: @main calls @tvmgen_default_match_main_0 (Compiler="match",
    // Primitive=1), which passes meta[0] (1x3x3x3 int8 weights) and meta[1] (the int32 bias) to
    // its Composite fn. @main has one call, so one partition.
    const QString corpus
        = QStringLiteral(CLEAVE_CORPUS_DIR "/relay/conv-bias-relu_byoc-partitioned_metadata-b64_"
                                           "match.relay.txt");
    if (!QFile::exists(corpus))
        QSKIP("corpus not available");
    const Export c = exportCut(corpus, nullptr, true, tmp);
    QVERIFY(c.result.ok);
    QCOMPARE(liftedEntries(c.dir),
             (std::vector<std::string> {
                 "mod0 const_0 <- meta[relay.Constant][0] Tensor[(1, 3, 3, 3), int8] via "
                 "@tvmgen_default_match_main_0",
                 "mod0 const_1 <- meta[relay.Constant][1] Tensor[(1), int32] via "
                 "@tvmgen_default_match_main_0" }));
    const std::string text = readAll(c.dir + QStringLiteral("/mod0.relay"));
    QVERIFY2(text.find("meta[") == std::string::npos, text.c_str());
    QVERIFY2(text.find("@tvmgen_default_match_main_0(%input_0, %const_0, %const_1)")
                 != std::string::npos,
             text.c_str());
    const VerifyResult cv = verifyExport(c.dir.toStdString());
    QVERIFY2(cv.ok, cv.firstDifference.c_str());
}

void TestExportLift::everyRelayModelLifts_data()
{
    QTest::addColumn<QString>("model");
    QStringList models;
    for (const auto &[dir, pattern] :
         { std::pair(QStringLiteral(CLEAVE_SAMPLES_DIR), QStringLiteral("*.relay")),
           std::pair(QStringLiteral(CLEAVE_CORPUS_DIR "/relay"), QStringLiteral("*.relay.txt")) }) {
        for (const QString &f : QDir(dir).entryList({ pattern }, QDir::Files, QDir::Name))
            models << dir + QLatin1Char('/') + f;
    }
    if (models.isEmpty())
        QSKIP("samples not available");
    for (const QString &m : models)
        QTest::newRow(qPrintable(QFileInfo(m).fileName())) << m;
}

void TestExportLift::everyRelayModelLifts()
{
    // Every Relay model, cut after its middle call, exports with --lift-constants, recomposes,
    // and a module that still holds a meta[...] reference of a metadata-less source says so.
    QFETCH(QString, model);
    if (QFileInfo(model).size() > 500 * 1024)
        QSKIP("large models are exported by tst_weights / tst_export");
    const auto g = load(model);
    QVERIFY(g);
    PartitionPlan plan(*g);
    std::vector<NodeId> calls;
    for (NodeId n : plan.view().assignableNodes()) {
        const NodeKind kind = g->node(n).kind;
        if (kind == NodeKind::OpCall || kind == NodeKind::FunctionCall)
            calls.push_back(n);
    }
    if (calls.size() >= 3) {
        std::vector<NodeId> after;
        for (NodeId n : plan.view().assignableNodes()) {
            if (plan.view().position(n) > plan.view().position(calls[calls.size() / 2]))
                after.push_back(n);
        }
        QVERIFY(!hasErrors(plan.cutBeforeNodes({ after }).diagnostics));
    }
    QTemporaryDir tmp;
    const QString dir = tmp.path() + QStringLiteral("/out");
    ExportOptions options;
    options.liftConstants = true;
    const ExportResult r
        = exportPartitions(plan, computeBoundary(plan), options, dir.toStdString());
    QVERIFY(r.ok);
    const std::vector<Diagnostic> warnings = withCode(r.diagnostics, "export.no_metadata");
    for (std::size_t k = 0; k < plan.partitionCount(); ++k) {
        const std::string file = "mod" + std::to_string(k) + ".relay";
        const std::string text = readAll(dir + QLatin1Char('/') + QString::fromStdString(file));
        const bool warned = std::any_of(warnings.begin(), warnings.end(), [&](const Diagnostic &d) {
            return d.message.starts_with(file);
        });
        if (g->metadata().empty() && text.find("meta[") != std::string::npos)
            QVERIFY2(warned, (file + " keeps meta[...] without a warning").c_str());
        if (text.find("meta[") == std::string::npos)
            QVERIFY2(!warned, (file + " is warned about without a meta[...] left").c_str());
    }
    const VerifyResult v = verifyExport(dir.toStdString());
    QVERIFY2(v.ok, v.firstDifference.c_str());
}

QTEST_APPLESS_MAIN(TestExportLift)
#include "tst_export_lift.moc"
