#!/usr/bin/env python3
"""Cycles on the link graph of a build.

File A depends on file B when one of A's undefined global symbols (`nm` over
the object files of the build) is defined in B. A strongly connected group
of two or more files is a cycle: none of its files can be understood, built
or tested without the others. Reports every group; exits 1 when there is
one that the allow-list does not name, 0 otherwise.

usage: link_cycles.py BUILD_DIR SOURCE_DIR [--allow GROUP_FILE]
  GROUP_FILE lists, one per line, groups allowed for now (their files
  joined by spaces); a listed group that no longer exists fails too, so the
  list only shrinks. The project has none: ctest runs without it.
"""
import argparse
import glob
import os
import subprocess
import sys
from collections import defaultdict


def objects(build, src):
    """(source path relative to src, object path) of the project's C objects
    (tests, fuzz, generated protobuf code and the simulator left out)."""
    out = []
    for o in glob.glob(os.path.join(build, "CMakeFiles", "*.dir", "**", "*.o"), recursive=True):
        rel = os.path.relpath(o, build)
        parts = rel.split(os.sep)
        target = parts[1][:-4]  # "oc_core.dir" -> "oc_core"
        if target not in ("oc_core", "oc_views", "oc_probe", "oc_reports", "oc_replay_host", "onnxcost"):
            continue
        path = os.path.join(*parts[2:])[:-2]  # strip ".o": analyzer/ops/conv.c
        out.append((path, o))
    return out


def symbols(obj):
    run = subprocess.run(["nm", "-g", "--defined-only", obj], capture_output=True, text=True, check=True)
    defined = {ln.split()[-1] for ln in run.stdout.splitlines() if ln.strip() and ln.split()[-2] in "TDBRCVWG"}
    run = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True)
    undefined = {ln.split()[-1] for ln in run.stdout.splitlines() if ln.strip()}
    return defined, undefined


def sccs(nodes, edges):
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("src")
    ap.add_argument("--allow")
    a = ap.parse_args()
    objs = objects(a.build, a.src)
    if not objs:
        print(f"SKIP: no object files under {a.build}")
        return 77
    where, undef = {}, {}
    for path, o in objs:
        d, u = symbols(o)
        undef[path] = u
        for s in d:
            where.setdefault(s, path)
    edges = defaultdict(set)
    for path, u in undef.items():
        for s in u:
            if s in where and where[s] != path:
                edges[path].add(where[s])
    groups = [g for g in sccs(undef.keys(), edges) if len(g) > 1]
    allowed = set()
    if a.allow and os.path.exists(a.allow):
        allowed = {" ".join(sorted(ln.split())) for ln in open(a.allow) if ln.strip() and not ln.startswith("#")}
    found = {" ".join(g) for g in groups}
    bad = 0
    for g in groups:
        key = " ".join(g)
        tag = "allowed" if key in allowed else "CYCLE"
        bad += key not in allowed
        print(f"{tag}: {len(g)} files: {key}")
    for key in sorted(allowed - found):
        print(f"FIXED: remove from the allow-list: {key}")
        bad += 1
    print(f"{len(objs)} object files, {sum(len(e) for e in edges.values())} link edges, {len(groups)} cycles")
    print(f"{1 if not bad else 0} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
