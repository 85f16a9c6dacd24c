// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Diagnostic.h"
#include "core/graph/Ids.h"
#include "core/graph/TensorRefList.h"
#include "core/graph/Type.h"
#include "core/graph/TypeList.h"
#include "core/support/HashedIdIndex.h"
#include "core/support/InternedString.h"
#include "core/support/SharedBox.h"
#include "core/support/SourceLocation.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cleave {

/// What a node is. Operator-like kinds (OpCall, FunctionCall, ClosureCall, ConstructorCall, If,
/// Match) are what a partition plan assigns; Input and Constant are sources; Tuple and
/// TupleGetItem are structural.
enum class NodeKind : std::uint8_t {
    Input, ///< A function parameter (a graph input when it belongs to the main function).
    Constant, ///< `meta[relay.Constant][i]`, an inline scalar (`1f`, `0i64`), or a graph.json
              ///< param.
    OpCall, ///< A call of a primitive operator: `op` is its name (`nn.conv2d`).
    FunctionCall, ///< A call of a global or literal function: `callee` says which.
    ClosureCall, ///< A call of a function-typed value: inputs[0] is the callee value.
    ConstructorCall, ///< An ADT constructor (`Cons(%x, %xs)`, `Nil`): `op` is its name.
    Tuple, ///< `(%a, %b)`.
    TupleGetItem, ///< `%t.N`: `index` is N.
    FunctionValue, ///< A function literal or global used as a value, not called in place.
    If, ///< `if (c) {..} else {..}`: inputs[0] the condition, scopes {then, else}.
    Match, ///< `match (x) {..}`: inputs[0] the scrutinee, scopes/patterns one per clause.
};

/// Name of a node kind as shown to users ("op", "input", ...).
const char *nodeKindName(NodeKind kind);

/// A pattern of a `match` clause.
struct Pattern
{
    enum class Kind : std::uint8_t { Wildcard, Variable, Constructor, Tuple };
    Kind kind = Kind::Wildcard;
    std::string name; ///< Constructor name, or the variable's name.
    NodeId variable; ///< Variable: the Input node bound in the clause's scope.
    Type type; ///< Variable: its annotated type, if any.
    std::vector<Pattern> children;

    friend bool operator==(const Pattern &a, const Pattern &b) = default;
};

/// The fields of a node that few nodes have: meta references, source spans, scalar constant
/// values, the scopes and patterns of `if` / `match`, per-output tensor names. A Node keeps them
/// out of line (shared by copies until one copy changes them) so that an ordinary operator node
/// stays small.
struct NodeDetail
{
    std::string attrsRef; ///< A whole-attrs meta reference (`meta[relay.attrs.X][i]`), if any.
    AttrValue value; ///< Constant: the scalar value (Null for tensor constants).
    std::string metaRef; ///< Constant: `meta[relay.Constant][i]` when not a scalar.
    std::string span; ///< Source span/name comment (`span=...` or the v0.8 `/* name */`).
    std::vector<FunctionId> scopes; ///< If: {then, else}; Match: one body per clause.
    std::vector<Pattern> patterns; ///< Match: one pattern per clause.
    /// Per-output tensor names where the format names tensors (ONNX); empty otherwise.
    std::vector<std::string> outputNames;
    bool partialMatch = false; ///< Match: printed as `match?`.
};

/// Where a node's expression starts in its source: line and column, 1-based, 0 when unknown.
/// The file is the graph's sourcePath().
struct SourcePosition
{
    int line = 0;
    int column = 0;

    [[nodiscard]] static SourcePosition of(const SourceLocation &l) { return { l.line, l.column }; }
    [[nodiscard]] bool isValid() const { return line > 0; }
    /// `line:column` (an unknown column is left out).
    [[nodiscard]] std::string toString() const
    {
        return SourceLocation { {}, line, column }.toString();
    }

    friend bool operator==(const SourcePosition &, const SourcePosition &) = default;
};

/// One node of the dataflow graph. Nodes of all functions of a module live in one Graph and are
/// addressed by NodeId; `function` says which function's body the node belongs to. The fields
/// most nodes leave empty live in a NodeDetail, read through accessors and written through
/// setters (which allocate the detail only for a non-empty value).
struct Node
{
    NodeKind kind = NodeKind::OpCall;
    bool typeAnnotated = false; ///< True when outputTypes()[0] came from the source text.

private:
    /// Which inline meta reference a Constant holds (0: none; its detail may hold one). Here,
    /// beside the other byte fields, it takes no room of its own.
    std::uint8_t m_metaForm = 0;

public:
    FunctionId function;
    FunctionId callee; ///< FunctionCall / FunctionValue: the function.
    /// TupleGetItem: the projected field. Constant: `i` of a `meta[relay.Constant][i]`,
    /// `metadata["relax.expr.Constant"][i]` or `metadata["ir.GenericConst"][i]` reference held
    /// inline (see metaRef()).
    std::uint32_t index = 0;
    SourcePosition where; ///< Where the node's expression starts in the source.
    std::string name; ///< Binding name from the source (`%12`, `%x`, `%data`), or synthesized.
    /// OpCall: operator; ConstructorCall: constructor; graph.json: func_name. Interned: a model
    /// names a few hundred operators across all its nodes.
    InternedString op;
    TensorRefList inputs; ///< Producers of the inputs, in argument order.
    Attributes attrs; ///< Call attributes in source order.

    /// One type per output (Relay nodes have exactly one), shared with every node of equal types.
    [[nodiscard]] const TypeList &outputTypes() const { return m_outputTypes; }
    /// The type of output `i`, or an Unknown type.
    [[nodiscard]] const Type &outputType(std::size_t i = 0) const;
    [[nodiscard]] std::size_t outputCount() const { return m_outputTypes.size(); }
    /// Replaces the output types.
    void setOutputTypes(TypeList types) { m_outputTypes = types; }
    /// Replaces the type of output `i`, adding Unknown outputs when `i` is past the last one.
    void setOutputType(std::size_t i, Type type)
    {
        m_outputTypes = m_outputTypes.with(i, std::move(type));
    }
    /// True for kinds a partition plan assigns to partitions (calls, If, Match).
    [[nodiscard]] bool isOperator() const;

    // --- rarely used fields (see NodeDetail) ---------------------------------------------------
    /// True when the node holds a detail of its own (some rare field was set non-empty).
    [[nodiscard]] bool hasDetail() const { return m_detail.hasValue(); }
    [[nodiscard]] const NodeDetail &detail() const
    {
        return m_detail.hasValue() ? m_detail.value() : noDetail();
    }
    [[nodiscard]] const std::string &attrsRef() const { return detail().attrsRef; }
    [[nodiscard]] const AttrValue &value() const { return detail().value; }
    /// Constant: its meta reference (`meta[relay.Constant][3]`), or empty. The common spellings
    /// are held inline (a form and `index`), so a model's many weights allocate no detail.
    [[nodiscard]] std::string metaRef() const;
    [[nodiscard]] const std::string &span() const { return detail().span; }
    [[nodiscard]] const std::vector<FunctionId> &scopes() const { return detail().scopes; }
    [[nodiscard]] const std::vector<Pattern> &patterns() const { return detail().patterns; }
    [[nodiscard]] const std::vector<std::string> &outputNames() const
    {
        return detail().outputNames;
    }
    [[nodiscard]] bool partialMatch() const { return detail().partialMatch; }
    void setAttrsRef(std::string ref);
    void setValue(AttrValue value);
    void setMetaRef(std::string ref);
    void setSpan(std::string span);
    void setScopes(std::vector<FunctionId> scopes);
    void setPatterns(std::vector<Pattern> patterns);
    void setOutputNames(std::vector<std::string> names);
    void setPartialMatch(bool partial);
    /// The detail for in-place edits: created on first use, unshared from copies of the node.
    [[nodiscard]] NodeDetail &editDetail();
    /// Shares `other`'s detail, copy-on-write as a copied node does (see SharedValues).
    void shareDetail(const Node &other) { m_detail = other.m_detail; }

private:
    static const NodeDetail &noDetail();

    TypeList m_outputTypes;
    SharedBox<NodeDetail> m_detail; // one pointer: a std::shared_ptr took two
};

// A large model holds one Node per value (1.3 million in a 100 MB Relay module): the pooled
// fields (op, attrs, output types) are 4-byte numbers and the input list packs beside them.
static_assert(sizeof(Node) == 96, "a Node is 96 bytes");

/// A function of a module: a global definition (`def @main`), a function literal (`fn (...)`), or
/// an inner scope (an `if` branch or a `match` clause body, which has no parameters of its own
/// beyond pattern variables and may read values of its enclosing functions).
struct Function
{
    enum class Kind : std::uint8_t { Global, Literal, Scope };

    Kind kind = Kind::Global;
    std::string
        name; ///< Global: the name without `@`; Literal: the binding (`%3`); Scope: synthesized.
    FunctionId parent; ///< Enclosing function (invalid for globals).
    std::vector<NodeId> params; ///< Input nodes, in order.
    NodeId result; ///< The body's result value.
    Attributes attrs; ///< Function attributes (`Primitive=1`, `Compiler="dnnl"`, ...).
    std::vector<std::string> typeParams; ///< `def @map[A, B]`.
    Type returnType; ///< Declared `-> T`, Unknown when not declared.
    bool hasReturnType = false;
    SourceLocation where;
    std::vector<NodeId> nodes; ///< Nodes whose `function` is this one, in creation order.
    /// The verbatim source of a function whose body Cleave does not model (a Relax module's
    /// TIR `@T.prim_func`); empty for functions with a dataflow body.
    std::string sourceText;

    /// True for `Primitive=1` functions (fused kernels and BYOC partitions).
    [[nodiscard]] bool isPrimitive() const;
    /// `Composite=` value, or empty.
    [[nodiscard]] std::string composite() const;
    /// `Compiler=` (Relay) or `Codegen` (Relax) value, or empty.
    [[nodiscard]] std::string compiler() const;
};

/// An ADT definition (`type List[A] { Cons(A, List[A]), Nil, }`), kept so modules print back.
struct TypeDefinition
{
    struct Constructor
    {
        std::string name;
        std::vector<Type> fields;
        friend bool operator==(const Constructor &, const Constructor &) = default;
    };
    std::string name;
    std::vector<std::string> typeParams;
    std::vector<Constructor> constructors;
    bool isExtern = false;
    friend bool operator==(const TypeDefinition &, const TypeDefinition &) = default;
};

/// A whole model: every function of a module and every node of every function, in one flat,
/// index-addressed store. Importers add functions and nodes, then call finalize(), which builds
/// the consumer index (O(1) access to a node's uses) and the stable node keys.
class Graph
{
public:
    Graph() = default;
    Graph(const Graph &) = default;
    Graph(Graph &&) noexcept = default;
    Graph &operator=(const Graph &) = default;
    Graph &operator=(Graph &&) noexcept = default;

    // --- building -------------------------------------------------------------------------
    /// Adds a function and returns its id.
    FunctionId addFunction(Function f);
    /// Adds a node to `n.function` (which must exist) and returns its id. (Taken by rvalue
    /// reference: a by-value parameter moved every node twice, its name's bytes each time.)
    NodeId addNode(Node &&n);
    /// Adds a copy of `n`.
    NodeId addNode(const Node &n) { return addNode(Node(n)); }
    /// Adds an input node named `name` with the annotated type `type` as the last parameter of
    /// function `f` (module writers building a signature) and returns its id.
    NodeId addParam(FunctionId f, std::string name, const Type &type);
    /// Reserves room for `n` nodes (importers call it with an estimate from the file size;
    /// finalize() gives back what an estimate left unused).
    void reserveNodes(std::size_t n) { m_nodes.reserve(n); }
    /// Builds the consumer index and node keys. Call once after the last addNode(); editing
    /// nodes afterwards requires calling it again.
    void finalize();

    // --- access ---------------------------------------------------------------------------
    [[nodiscard]] std::size_t nodeCount() const { return m_nodes.size(); }
    [[nodiscard]] std::size_t functionCount() const { return m_functions.size(); }
    [[nodiscard]] const Node &node(NodeId id) const { return m_nodes[id.index()]; }
    [[nodiscard]] Node &node(NodeId id) { return m_nodes[id.index()]; }
    [[nodiscard]] const Function &function(FunctionId id) const { return m_functions[id.index()]; }
    [[nodiscard]] Function &function(FunctionId id) { return m_functions[id.index()]; }
    [[nodiscard]] std::span<const Node> nodes() const { return m_nodes; }
    [[nodiscard]] std::span<const Function> functions() const { return m_functions; }

    /// The function partitioning works on: `@main`; else the public global function with a
    /// dataflow body (not a TIR PrimFunc, not private, not `_named`) with the most operator
    /// calls (a Relax module's `forward`, not its `_initialize_effect`); else the first global
    /// with a dataflow body; else the first function. Chosen once by finalize().
    [[nodiscard]] FunctionId mainFunction() const;
    /// Why mainFunction() is the one it is, for the user ("the module has no main: forward is
    /// its largest public function (2787 ops; get_image_embeddings 2500, ...)").
    [[nodiscard]] std::string mainFunctionReason() const;
    /// The global function called `name` (without `@`), or an invalid id.
    [[nodiscard]] FunctionId findFunction(std::string_view name) const;
    /// The outermost global function that (transitively) encloses `f`.
    [[nodiscard]] FunctionId topLevelFunction(FunctionId f) const;

    /// True once finalize() has built the consumer index (uses() is empty before).
    [[nodiscard]] bool hasConsumerIndex() const { return !m_useOffsets.empty(); }
    /// Every use of any output of `node`, in ascending consumer order. Requires finalize().
    [[nodiscard]] std::span<const Use> uses(NodeId node) const;
    /// The uses of one output of a node.
    [[nodiscard]] std::vector<Use> consumers(TensorRef tensor) const;
    /// The type of a tensor (an output of a node).
    [[nodiscard]] const Type &tensorType(TensorRef tensor) const;

    /// The stable, user-facing id of a node: its source name (`%12`, `%data`), qualified with
    /// `@function:` outside the main function, made unique with `#k` if ever ambiguous.
    [[nodiscard]] const std::string &key(NodeId id) const;
    /// The node with the given key, or an invalid id. Requires finalize().
    [[nodiscard]] NodeId findByKey(std::string_view key) const;

    /// The nodes of function `f` (not of its nested functions) in a topological order (producers
    /// first; ties keep creation order). Nodes on a cycle are left out.
    [[nodiscard]] std::vector<NodeId> topologicalOrder(FunctionId f) const;
    /// The tensors a function returns: the fields of a result tuple, else the result itself.
    [[nodiscard]] std::vector<TensorRef> outputs(FunctionId f) const;

    /// ADT definitions of the module, in source order.
    [[nodiscard]] const std::vector<TypeDefinition> &typeDefinitions() const { return m_typeDefs; }
    void addTypeDefinition(TypeDefinition def) { m_typeDefs.push_back(std::move(def)); }

    // --- provenance -----------------------------------------------------------------------
    /// The importer's format name: "relay", "graph.json", "onnx".
    [[nodiscard]] const std::string &format() const { return m_format; }
    void setFormat(std::string f) { m_format = std::move(f); }
    [[nodiscard]] const std::string &sourcePath() const { return m_sourcePath; }
    void setSourcePath(std::string p) { m_sourcePath = std::move(p); }
    /// Hex SHA-256 of the source bytes (plans and layout caches are keyed by it).
    [[nodiscard]] const std::string &checksum() const { return m_checksum; }
    void setChecksum(std::string c) { m_checksum = std::move(c); }
    /// The version header of a Relay source (`0.0.5`, `0.0.4`), empty when absent.
    [[nodiscard]] const std::string &versionHeader() const { return m_version; }
    void setVersionHeader(std::string v) { m_version = std::move(v); }
    /// The `#[metadata]` JSON of a Relay source (the `tvm.ir.load_json` text of a Relax one),
    /// verbatim; empty when absent.
    [[nodiscard]] const std::string &metadata() const { return m_metadata; }
    void setMetadata(std::string m) { m_metadata = std::move(m); }
    /// Module-level facts of formats that have them (Relax: `class` name, TIR dialect,
    /// `I.module_global_infos`), kept so that modules print back.
    [[nodiscard]] const Attributes &moduleAttrs() const { return m_moduleAttrs; }
    [[nodiscard]] Attributes &moduleAttrs() { return m_moduleAttrs; }

private:
    void buildKeys();
    /// mainFunction()'s rule; without `largestPublic`, the first global with a dataflow body
    /// (the rule keys are made with).
    [[nodiscard]] FunctionId chooseMainFunction(bool largestPublic) const;
    /// Indexes every node's key for findByKey; false when two nodes have equal keys (the
    /// index then holds the first of them).
    bool indexKeys();

    std::vector<Node> m_nodes;
    std::vector<Function> m_functions;
    FunctionId m_main; ///< mainFunction(), chosen by finalize().
    std::vector<TypeDefinition> m_typeDefs;
    std::vector<std::uint32_t> m_useOffsets; // CSR: uses of node i are m_uses[off[i], off[i+1])
    std::vector<Use> m_uses;
    // Keys: most nodes' key is their name. m_keySlot (empty when every key is its node's
    // name) holds for node i the index into m_otherKeys of a key
    // that is not (qualified, synthesized or made unique), or noSlot; m_keyIndex finds a node
    // by its key, for findByKey.
    static constexpr std::uint32_t noSlot = 0xffffffffU;
    std::vector<std::uint32_t> m_keySlot;
    std::vector<std::string> m_otherKeys;
    HashedIdIndex m_keyIndex;
    std::string m_format;
    std::string m_sourcePath;
    std::string m_checksum;
    std::string m_version;
    std::string m_metadata;
    Attributes m_moduleAttrs;
};

} // namespace cleave
