#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Layout quality counted from the drawing alone (issue 33): reads an SVG written by
`cleave-cli render MODEL -o OUT.svg` and knows nothing of Cleave's layout code. Prints

  nodes, edges          the node boxes (rect class="node") and the edges (paths without fill,
                        stroke width 1.2, or 3 for boundary edges), flattened to polylines
                        (a cubic Bezier as 12 segments);
  crossings             points where two different edges cross (touching at a shared end, as
                        edges leaving or entering one node do, is not a crossing);
  long_long             crossings between two long edges: edges whose vertical extent spans
                        more than two rank pitches (the median gap between successive node rows);
  long_long_mid         of those, the crossings more than one rank pitch (vertically) from every
                        end of both edges: in the lanes long edges run in between ranks, not where
                        they leave their producer or enter their consumer;
  edge_through_node     edge segments that pass through the inside of a node box that is not one
                        of the edge's own ends;
  width                 the drawing's width (node boxes), in SVG units;

and one JSON line. Usage: svg_crossings.py DRAWING.svg
"""
import json
import re
import statistics
import sys
import xml.etree.ElementTree as ET

TOKEN = re.compile(r"[MLC]|-?\d+(?:\.\d+)?(?:e-?\d+)?")


def polyline(d):
    """The points of an SVG path of absolute M, L and C commands, as a list of runs."""
    runs, run, cmd, nums = [], [], None, []
    tokens = TOKEN.findall(d)
    i = 0

    def number():
        nonlocal i
        v = float(tokens[i])
        i += 1
        return v

    while i < len(tokens):
        t = tokens[i]
        if t in "MLC":
            cmd = t
            i += 1
            continue
        if cmd == "M":
            if len(run) > 1:
                runs.append(run)
            run = [(number(), number())]
            cmd = "L"
        elif cmd == "L":
            run.append((number(), number()))
        elif cmd == "C":
            p0 = run[-1]
            p1 = (number(), number())
            p2 = (number(), number())
            p3 = (number(), number())
            for k in range(1, 13):
                s = k / 12
                a, b, c, e = (1 - s) ** 3, 3 * (1 - s) ** 2 * s, 3 * (1 - s) * s * s, s ** 3
                run.append((a * p0[0] + b * p1[0] + c * p2[0] + e * p3[0],
                            a * p0[1] + b * p1[1] + c * p2[1] + e * p3[1]))
        else:
            i += 1
    if len(run) > 1:
        runs.append(run)
    return runs


def cross(p, q, r, s):
    """The proper intersection point of segments pq and rs, or None."""
    d = (q[0] - p[0]) * (s[1] - r[1]) - (q[1] - p[1]) * (s[0] - r[0])
    if abs(d) < 1e-12:
        return None
    t = ((r[0] - p[0]) * (s[1] - r[1]) - (r[1] - p[1]) * (s[0] - r[0])) / d
    u = ((r[0] - p[0]) * (q[1] - p[1]) - (r[1] - p[1]) * (q[0] - p[0])) / d
    if 0 < t < 1 and 0 < u < 1:
        return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
    return None


def inside(box, p, q):
    """True when segment pq passes through the inside of box (x0, y0, x1, y1) shrunk by 1."""
    x0, y0, x1, y1 = box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1
    if x0 >= x1 or y0 >= y1:
        return False
    # Liang-Barsky clipping.
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for pk, qk in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if pk == 0:
            if qk < 0:
                return False
            continue
        r = qk / pk
        if pk < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return t1 - t0 > 1e-9


def main(path):
    root = ET.parse(path).getroot()
    boxes, edges = [], []
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "rect" and el.get("class") == "node":
            x, y = float(el.get("x")), float(el.get("y"))
            boxes.append((x, y, x + float(el.get("width")), y + float(el.get("height"))))
        elif (tag == "path" and el.get("fill") == "none" and el.get("class") is None
              and el.get("stroke-width") in ("1.2", "3")):
            edges.append(polyline(el.get("d")))
    # An edge path may hold several runs (an edge item's arrow, a stub): each run is an edge.
    runs = [run for e in edges for run in e]
    tops = sorted({round(b[1], 1) for b in boxes})
    gaps = [b - a for a, b in zip(tops, tops[1:]) if b - a > 1]
    pitch = statistics.median(gaps) if gaps else 60.0
    long_run = [max(p[1] for p in r) - min(p[1] for p in r) > 2 * pitch for r in runs]

    cell = 64.0
    grid = {}
    for e, run in enumerate(runs):
        for k in range(len(run) - 1):
            p, q = run[k], run[k + 1]
            for gx in range(int(min(p[0], q[0]) // cell), int(max(p[0], q[0]) // cell) + 1):
                for gy in range(int(min(p[1], q[1]) // cell), int(max(p[1], q[1]) // cell) + 1):
                    grid.setdefault((gx, gy), []).append((e, k))
    seen = set()
    crossings = long_long = long_long_mid = 0
    for items in grid.values():
        for a in range(len(items)):
            ea, ka = items[a]
            pa, qa = runs[ea][ka], runs[ea][ka + 1]
            for b in range(a + 1, len(items)):
                eb, kb = items[b]
                if ea == eb:
                    continue
                key = (min(ea, eb), ka if ea < eb else kb, max(ea, eb), kb if ea < eb else ka)
                if key in seen:
                    continue
                seen.add(key)
                x = cross(pa, qa, runs[eb][kb], runs[eb][kb + 1])
                if x is None:
                    continue
                # Edges that share an end (two edges out of one node) meet there: not a crossing.
                ends = (runs[ea][0], runs[ea][-1], runs[eb][0], runs[eb][-1])
                if any(abs(x[0] - e[0]) < 2 and abs(x[1] - e[1]) < 2 for e in ends):
                    continue
                crossings += 1
                if long_run[ea] and long_run[eb]:
                    long_long += 1
                    long_long_mid += all(abs(x[1] - e[1]) > pitch for e in ends)

    box_grid = {}
    for i, b in enumerate(boxes):
        for gx in range(int(b[0] // cell), int(b[2] // cell) + 1):
            for gy in range(int(b[1] // cell), int(b[3] // cell) + 1):
                box_grid.setdefault((gx, gy), []).append(i)
    through = 0
    for run in runs:
        for k in range(len(run) - 1):
            p, q = run[k], run[k + 1]
            hit = set()
            for gx in range(int(min(p[0], q[0]) // cell), int(max(p[0], q[0]) // cell) + 1):
                for gy in range(int(min(p[1], q[1]) // cell), int(max(p[1], q[1]) // cell) + 1):
                    hit.update(box_grid.get((gx, gy), ()))
            for i in hit:
                b = boxes[i]
                own = any(b[0] - 3 <= e[0] <= b[2] + 3 and b[1] - 3 <= e[1] <= b[3] + 3
                          for e in (run[0], run[-1]))
                if not own and inside(b, p, q):
                    through += 1
    width = (max(b[2] for b in boxes) - min(b[0] for b in boxes)) if boxes else 0
    figures = {"drawing": path, "nodes": len(boxes), "edges": len(runs), "crossings": crossings,
               "long_long": long_long, "long_long_mid": long_long_mid, "edge_through_node": through, "width": round(width, 1),
               "rank_pitch": round(pitch, 1)}
    print(f"{path}: {len(boxes)} nodes, {len(runs)} edge runs, {crossings} crossings "
          f"({long_long} between long edges, {long_long_mid} of them away from their ends), {through} edge segments through nodes, "
          f"width {width:.0f}")
    print(json.dumps(figures))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
