// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Lays out a graph with dagre (npm `dagre`, the engine Netron's own layout is a port of), for
// bench_quality's comparison of crossings and width. Reads the graph bench_quality writes:
//   {"nodesep": N, "ranksep": N, "edgesep": N,
//    "nodes": [[width, height], ...], "edges": [[from, to], ...]}   (indices into nodes)
// and writes
//   {"ms": layout milliseconds, "nodes": [[x, y], ...] (centres),
//    "edges": [[x0, y0, x1, y1, ...], ...] (each edge's polyline, in input order)}
// Usage: node dagre_layout.js DAGRE_MODULES_DIR IN.json OUT.json
'use strict';

const fs = require('fs');
const path = require('path');

const [modules, inFile, outFile] = process.argv.slice(2);
if (!modules || !inFile || !outFile) {
    process.stderr.write('usage: node dagre_layout.js DAGRE_MODULES_DIR IN.json OUT.json\n');
    process.exit(2);
}
const dagre = require(path.resolve(modules, 'node_modules', 'dagre'));
const input = JSON.parse(fs.readFileSync(inFile, 'utf8'));

const g = new dagre.graphlib.Graph({ multigraph: true });
g.setGraph({ rankdir: 'TB', nodesep: input.nodesep, ranksep: input.ranksep,
             edgesep: input.edgesep });
g.setDefaultEdgeLabel(() => ({}));
input.nodes.forEach(([width, height], i) => g.setNode(String(i), { width, height }));
input.edges.forEach(([from, to], i) => g.setEdge(String(from), String(to), {}, 'e' + i));

const start = process.hrtime.bigint();
dagre.layout(g);
const ms = Number(process.hrtime.bigint() - start) / 1e6;

const nodes = input.nodes.map((_, i) => {
    const n = g.node(String(i));
    return [n.x, n.y];
});
const edges = input.edges.map(([from, to], i) => {
    const e = g.edge({ v: String(from), w: String(to), name: 'e' + i });
    return e.points.flatMap((p) => [p.x, p.y]);
});
fs.writeFileSync(outFile, JSON.stringify({ ms, nodes, edges }));
