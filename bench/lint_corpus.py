#!/usr/bin/env python3
"""`onnxcost lint` over fixtures/corpus and the CPU validation's exports
(docs/LINT.md, "Measured"): findings per rule, their savings, the weight
bytes read, and the time of lint beside a plain analysis of the same
model (one run each, wall clock of the whole process, /usr/bin/time).
Writes docs/results/lint-corpus.json.

usage: lint_corpus.py --onnxcost BIN [--exports DIR] [--out FILE]
"""
import argparse
import collections
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from ranges_vs_onnxsim import timed  # noqa: E402  (one process timed by /usr/bin/time: wall, peak RSS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--exports", default=os.path.join(ROOT, "bench", "out", "measure"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "lint-corpus.json"))
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(ROOT, "fixtures", "corpus", "*", "*.onnx")))
    files += sorted(glob.glob(os.path.join(a.exports, "*.onnx")))
    rows = []
    per_rule = collections.Counter()
    for path in files:
        rel = os.path.relpath(path, ROOT)
        dims = ["--batch", "1"] if path.startswith(a.exports) else []
        p, lint_s, lint_rss = timed([a.onnxcost, "lint", path, *dims, "--format", "json", "--fail-on", "never"])
        if p.returncode != 0:
            rows.append({"model": rel, "error": p.stderr.strip()[-300:]})
            continue
        doc = json.loads(p.stdout)
        _, plain_s, plain_rss = timed([a.onnxcost, path, *dims, "--format", "json", "-q"])
        rules = collections.Counter(f["rule"] for f in doc["findings"])
        per_rule.update(rules)
        rows.append({"model": rel, "findings": dict(rules), "total_saving": doc["total_saving"],
                     "weight_bytes_read": doc["weight_bytes_read"], "weights_compared": doc["weights_compared"],
                     "lint_seconds": lint_s, "analysis_seconds": plain_s, "lint_peak_rss": lint_rss,
                     "analysis_peak_rss": plain_rss,
                     "messages": [f["rule"] + ": " + f["message"] for f in doc["findings"]
                                  if f["rule"] != "graph/constant-foldable"][:5]})
        print(rel, dict(rules), f"{lint_s:.2f}s vs {plain_s:.2f}s", flush=True)
    json.dump({"models": rows, "findings_per_rule": dict(per_rule)}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
