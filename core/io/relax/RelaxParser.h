// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/SharedValues.h"
#include "core/io/relax/RelaxSyntax.h"
#include "core/io/relax/ScopeNames.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cleave::relax {

/// Reads a printed Relax IRModule (TVMScript, TVM ≥ 0.13 … 0.26) into a Graph:
/// - every `@R.function` becomes a global Function (nested `@R.function` closures Literal
///   functions), its parameters Input nodes, its bindings nodes named by their variable;
/// - `R.<op>(...)` calls are OpCall nodes named `relax.<op>` with keyword arguments as attrs;
///   `R.call_tir` / `call_tir_inplace` / `call_dps_packed` / `call_packed` / `call_pure_packed`
///   are OpCall kernels named by their callee, with attr `call` saying which form and the
///   PrimFunc's `op_pattern`; `cls.f(...)` and closure calls are FunctionCall nodes;
/// - `R.const`, `R.shape`, `R.prim_value`, `R.str`, `R.dtype` and `metadata[...]` references are
///   Constant nodes (Node::op names the constructor); tuples, `x[i]` and `if` / `else` are
///   Tuple, TupleGetItem and If nodes; aliases (`gv = lv`) are the same value;
/// - `@T.prim_func` members are global functions whose TIR body is kept verbatim
///   (Function::sourceText) with the `T.func_attr` entries as attrs;
/// - decorator options and dataflow blocks are function attrs `@private`, `@pure`,
///   `@dataflow`; class name, TIR dialect and `I.module_global_infos` are module attrs.
/// Throws ParseError (file-relative line and column) on malformed input.
class RelaxParser
{
public:
    /// With `shareKeywords`, calls with the same keyword text share one parse and lowering of
    /// it (see TokenStream); an error may then be placed at an earlier call with that text.
    explicit RelaxParser(std::string_view source, bool shareKeywords = true);
    std::unique_ptr<Graph> parse();
    /// True when some call reused keyword arguments read before (see the constructor).
    [[nodiscard]] bool reusedKeywords() const { return m_ts.reusedKeywords(); }

    static constexpr int maxBlockDepth = 64;

private:
    /// An expression that only marks where `t` stands, for diagnostics.
    static Expr exprAt(const Token &t)
    {
        Expr e;
        e.line = t.line;
        e.column = t.column;
        return e;
    }
    /// `@name` or `@name(...)`.
    static bool isDecorator(const Expr &e, std::string_view name)
    {
        return e.isName(name) || e.isCallOf(name);
    }

    struct Value
    {
        enum class Kind : std::uint8_t { Tensor, Function };
        Kind kind = Kind::Tensor;
        TensorRef ref;
        FunctionId function;
        int line = 0;
        int column = 0;
    };
    struct Scope
    {
        FunctionId function;
        Scope *parent = nullptr;
        ScopeNames<Value> names;
    };
    /// A type annotation: its expression, or the type of the same text read before. `text` is
    /// its source text when it may be remembered (see annotationText in RelaxParserFunctions.cpp).
    struct Annotation
    {
        const Expr *expr = nullptr;
        const TypeList *known = nullptr; ///< `{type}`, pooled.
        std::string_view text;
    };
    struct BlockEnd
    {
        std::string name; ///< The variable of the block's last binding.
        Value value;
        int line = 0;
        int column = 0;
    };

    void parseModuleStatement();
    void parseClass(const Token &decorator, const Expr &decoratorExpr);
    void parseMember();
    void parsePrimFunc(const Token &at, const Expr &decorator);
    FunctionId parseFunction(const Expr &decorator, Function::Kind kind, Scope *outer);
    void parseParameters(Scope &scope);
    void parseBlock(Scope &scope, BlockEnd &end);
    void parseStatement(Scope &scope, BlockEnd &end);
    void parseIf(Scope &scope, BlockEnd &end);
    void parseAssignment(Scope &scope, BlockEnd &end, const Expr &target,
                         const Annotation &annotation, const Expr &value);
    /// A parameter's annotation as a pooled one-type list.
    TypeList parseAnnotation(std::string_view terminators);
    void parseExpressionStatement(Scope &scope, const Expr &e);
    void readMetadata(const Expr &value);
    void readFfiMetadata(const nlohmann::json &doc, const Expr &where);
    void finish();

    Value lowerBinding(const Expr &e, Scope &scope, std::string_view name,
                       const TypeList *annotation);
    Value lowerExpr(const Expr &e, Scope &scope) { return lowerBinding(e, scope, {}, nullptr); }
    TensorRef materialize(const Value &v, Scope &scope, const Expr &at);
    Value lowerCall(const Expr &e, Scope &scope, std::string_view name, const TypeList *annotation);
    /// The pooled attributes of keyword arguments, lowered once per shared keyword text.
    Attributes keywordAttributes(const KeywordArguments &args);
    /// The interned op name `relax.<op>`, looked up in the process pool once per name.
    InternedString relaxOpName(std::string_view op);
    Value lowerKernelCall(const Expr &e, std::string_view form, Scope &scope, Node node);
    Value lowerConstant(const Expr &e, std::string_view ctor, Scope &scope, Node node);
    Value lowerSubscript(const Expr &e, Scope &scope, Node node);
    Value lookup(const Expr &name, Scope &scope);
    /// True for a value made of symbolic shape variables and integers (`n`, `n * 2`), which
    /// TVM passes to ops as a PrimValue (`R.arange(0, n, 1)`); a Relax variable of the same
    /// name wins.
    [[nodiscard]] bool isSymbolicValue(const Expr &e, const Scope &scope) const;
    void bind(Scope &scope, std::string_view name, const Value &v, const Expr &at);
    FunctionId globalFunction(const std::string &name, const Expr &at);
    Value addNode(Node node, Scope &scope, const Expr &at);
    /// A PrimValue kept as its text (`n + 1`, `T.float32(1.0)`): a constant `op` of R.Prim
    /// `dtype` unless annotated otherwise.
    Value addPrimText(Node node, const char *op, const std::string &dtype, Scope &scope,
                      const Expr &e);
    [[noreturn]] void fail(const Expr &at, const std::string &message,
                           const std::string &code = "relax.syntax") const;

    /// Hashes std::string and std::string_view alike, for lookups that allocate nothing.
    struct StringHash
    {
        using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view> {}(s);
        }
    };
    TokenStream m_ts;
    std::unique_ptr<Graph> m_graph;
    std::string m_className;
    bool m_sawClass = false;
    std::unordered_map<std::string, FunctionId> m_globals;
    std::unordered_map<std::uint32_t, bool> m_defined;
    std::map<std::uint32_t, std::pair<int, int>> m_firstReference;
    /// Symbolic shape variables (T.int64(), TypeVar).
    std::unordered_set<std::string, StringHash, std::equal_to<>> m_symbols;
    std::map<std::string, std::size_t, std::less<>> m_metadataCounts; ///< Entries per metadata key.
    /// The constants' types the metadata header gives, per key (RelaxMetadataTypes.h).
    std::map<std::string, std::vector<Type>, std::less<>> m_metadataTypes;
    bool m_hasMetadata = false;
    /// `metadata["<key>"][` for the key of the last metadata reference.
    std::string m_metadataRefKey;
    std::string m_metadataRefPrefix;
    int m_blockDepth = 0;
    std::string m_sinfoKeyword;
    /// Types of the annotations read so far, by source text: a module spells a few hundred
    /// distinct annotations over tens of thousands of bindings and parameters.
    /// Kept as pooled one-type lists, so that a typed node shares its list without interning.
    std::unordered_map<std::string_view, TypeList> m_annotationTypes;
    /// The binding annotations of m_annotationTypes met last (each ends at its `=`).
    RecentTexts<const TypeList *> m_recentAnnotations;
    std::unordered_map<std::string, InternedString, StringHash, std::equal_to<>> m_opNames; // by op
    /// The op names looked up last (keys of m_opNames), compared before hashing.
    RecentTexts<InternedString> m_recentOpNames;
    SharedValues m_values; // scalar constants: one detail per distinct value
    std::vector<NodeId> m_kernelCalls; ///< R.call_tir & co, for their op_pattern (finish()).
    /// Calls, tuples and tuple items made without a type, in creation order (finish()).
    std::vector<NodeId> m_untypedNodes;
    /// Lowerings of shared keyword arguments (TokenStream keeps them for the whole parse).
    std::unordered_map<const KeywordArguments *, Attributes> m_sharedAttributes;
    std::unordered_map<const Expr *, TypeList> m_sharedSinfoTypes; ///< out_sinfo=, by its Expr.
};

} // namespace cleave::relax
