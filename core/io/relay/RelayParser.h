// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/SharedValues.h"
#include "core/io/relay/RelayTokenStream.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cleave::relay {

/// Parses a whole Relay text file (every form TVM 0.6–0.18 prints, docs/DESIGN.md §2) into a
/// Graph. Binding chains are parsed iteratively, so 24k-binding bodies need no deep recursion;
/// nested expressions recurse with a depth limit. Errors are thrown as ParseError.
class RelayParser
{
public:
    explicit RelayParser(std::string_view text);

    /// Parses the module. Throws ParseError on the first error.
    std::unique_ptr<Graph> parse();

private:
    /// The value of an expression: a tensor-valued node, a function (global or literal), an
    /// operator or constructor name used as a callee, or a whole-attrs meta reference.
    struct Value
    {
        enum class Kind : std::uint8_t { Tensor, Function, Op, Constructor, AttrsRef };
        Kind kind = Kind::Tensor;
        TensorRef ref;
        FunctionId function;
        std::string_view name;
        bool created = false; ///< The expression created `ref.node` (not a variable use).
    };

    /// What a name is bound to, 16 bytes (a large module holds one per binding at the peak of
    /// its import).
    struct Binding
    {
        /// A node, or a function literal when `isLiteral`.
        std::uint32_t value = 0;
        /// The name (without `%`) in the source: scopes restore names by it, and an error
        /// finds its line and column from it.
        std::uint32_t keyOffset = 0;
        std::uint32_t shadowed = noBinding; ///< The binding of the same name this one hides.
        std::uint16_t keyLength = 0; ///< At most maxNameLength.
        std::uint16_t depth : 15 = 0; ///< Scope depth (below maxScopeDepth).
        std::uint16_t isLiteral : 1 = 0;

        static Binding ofNode(NodeId n) { return Binding { n.value, 0, noBinding, 0, 0, 0 }; }
        static Binding ofLiteral(FunctionId f)
        {
            return Binding { f.value, 0, noBinding, 0, 0, 1 };
        }
        [[nodiscard]] NodeId node() const { return isLiteral ? NodeId() : NodeId(value); }
        [[nodiscard]] FunctionId literal() const
        {
            return isLiteral ? FunctionId(value) : FunctionId();
        }
    };
    static constexpr std::size_t maxNameLength = 0xffff;
    static constexpr std::uint32_t maxScopeDepth = 0x7fff;
    static constexpr std::uint32_t noBinding = 0xffffffffU;

    struct PendingUse
    {
        std::string name;
        int line = 0;
        int column = 0;
        std::uint32_t depth = 0;
    };

    // module level
    void parseTypeDefinition();
    void parseDefinition();
    void parseTopLevelFn();
    void parseMetadata(const Token &tok);
    FunctionId globalFunction(std::string_view name, const Token &tok);

    // functions and bodies
    FunctionId parseFunctionLiteral(const Token &fnToken, const std::string &name);
    void parseParams(FunctionId f, const std::string &context);
    Value parseBody(FunctionId f, const std::string &what);
    Value parseBlockExpression(const Token &open);
    void expectSemicolon(const std::string &name);

    // expressions
    Value parseExpr();
    Value parseAtom();
    Value parseCall(const Value &callee, const Token &calleeToken);
    Value parseParenthesized();
    Value parseIf(const Token &ifToken);
    Value parseMatch(const Token &matchToken);
    Pattern parsePattern(FunctionId scope);
    Value resolveVariable(const Token &tok);
    Value projection(const Value &tuple, std::uint32_t index, const Token &tok);
    /// The tuple index spelled by `digits`; fails at `at` when it does not fit 32 bits.
    std::uint32_t tupleIndex(std::string_view digits, const Token &at);
    Value scalarConstant(const Token &tok);
    Value metaConstant(const Token &tok);
    TensorRef materialize(const Value &v, const Token &tok);
    void annotate(const Value &v);
    /// A `/* ty=... */` comment's type as the one-element list `{type}`, parsed and interned
    /// once per distinct text (the pooled list is the only copy of the type: a second one in
    /// the cache held rnnt's 277-field tuple types twice at the peak of its import).
    TypeList typeFromComment(std::string_view text);
    /// The interned operator or constructor name, looked up in the process pool once per name.
    InternedString opName(std::string_view name);

    // names and scopes
    void pushScope();
    void popScope();
    void bind(const std::string &name, Binding b, const Token &tok);
    const Binding *lookup(std::string_view name) const;
    NodeId newNode(Node n, const Token &tok);
    FunctionId newScopeFunction(Function::Kind kind, std::string name, const Token &tok);

    // Recursion bounds. Each level of expression nesting costs a few stack frames (parseExpr →
    // parseAtom → parseParenthesized / parseFunctionLiteral → parseBody), each a few hundred
    // bytes, several kilobytes under AddressSanitizer: 256 levels stay far below an 8 MiB stack
    // (and the 2 MiB of a worker thread) while TVM's printer, which binds every call to a
    // %-name, rarely nests more than a handful.
    static constexpr int maxExpressionDepth = 256;
    static constexpr int maxFunctionNesting = 64;
    /// `line:column` of a token, for messages.
    static std::string at(const Token &t)
    {
        return std::to_string(t.line) + ":" + std::to_string(t.column);
    }
    static SourceLocation location(const Token &t)
    {
        return SourceLocation { {}, t.line, t.column };
    }

    RelayTokenStream m_ts;
    std::unique_ptr<Graph> m_graph;
    FunctionId m_current;
    std::uint32_t m_depth = 0; // name scope depth
    int m_exprDepth = 0; // recursion guard
    int m_fnDepth = 0; // fn literals open around the current expression
    // Name → index of its innermost binding in m_bindings. Keys view the source text (names
    // without their `%`), so lookups allocate nothing.
    std::unordered_map<std::string_view, std::uint32_t> m_names;
    // The same for the names TVM numbers (`%12`): indexed by the number, no hashing.
    std::vector<std::uint32_t> m_numbered;
    /// The index of a numbered name in m_numbered; none for other names.
    static std::optional<std::uint32_t> plainNumber(std::string_view name);
    static constexpr std::uint32_t maxNumberedSlots = 1U << 22;
    std::vector<Binding> m_bindings;
    std::vector<std::size_t> m_scopeMarks;
    std::vector<PendingUse> m_pending;
    std::unordered_map<std::string, FunctionId> m_globals;
    std::unordered_set<FunctionId> m_definedGlobals;
    std::unordered_map<FunctionId, Token> m_globalFirstUse;
    /// Hashes std::string and std::string_view alike, for lookups that allocate nothing.
    struct StringHash
    {
        using is_transparent = void; // NOLINT(readability-identifier-naming): std spelling
        std::size_t operator()(std::string_view s) const
        {
            return std::hash<std::string_view> {}(s);
        }
    };
    /// A meta constant within one function: the function's index and the reference's text.
    using ConstantKey = std::pair<std::uint32_t, std::string_view>;
    struct ConstantKeyHash
    {
        std::size_t operator()(const ConstantKey &k) const;
    };
    std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> m_constructorArity;
    std::unordered_map<ConstantKey, NodeId, ConstantKeyHash> m_constantCache;
    /// The node of `meta[relay.Constant][i]` by `i`, and the function it was made in.
    struct ConstantSlot
    {
        FunctionId function;
        NodeId node;
    };
    std::vector<ConstantSlot> m_constantSlots;
    /// `i` of `meta[relay.Constant][i]` (a plain number); none for other references.
    static std::optional<std::uint32_t> constantIndex(std::string_view ref);
    std::unordered_map<std::string_view, TypeList> m_typeCache;
    std::unordered_map<std::string_view, InternedString> m_opNames;
    /// The attributes of a call by their source text (from the first `key=` to the call's
    /// `)`): TVM prints the same attribute lists over and over (every 3x3 convolution's
    /// `padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]`), and a list read once is not
    /// lexed again. At most maxCachedAttrs texts are kept.
    std::unordered_map<std::string_view, Attributes> m_attrsByText;
    static constexpr std::size_t maxCachedAttrs = 4096;
    SharedValues m_values; // scalar constants: one detail per distinct value
    std::vector<Value> m_args; // the arguments of the calls being parsed, innermost last
    int m_literalCounter = 0;
};

} // namespace cleave::relay
