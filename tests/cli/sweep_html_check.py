#!/usr/bin/env python3
"""cli.sweep_html — every binding of the other dims is a line of the sweep's
charts, or the heading says how many are not (issue 42, D: 10 bindings of
sequence drew 8 lines and dropped sequence 256 and 512 without a word).

Counted from the HTML itself: per chart, the polylines (data-series) against
the bindings the sweep was given.

Usage: sweep_html_check.py ONNXCOST SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
model = os.path.join(SRC, "fixtures", "mnist", "torchsummary_net.onnx")
fails = []
with tempfile.TemporaryDirectory() as tmp:
    for n_other in (10, 30):
        # the first swept dim is the x axis; a second dim, bound N ways, makes N lines
        # (a name the model lacks changes no figure: N equal lines, still N)
        vals = ",".join(str(v) for v in range(1, n_other + 1))
        out = os.path.join(tmp, f"s{n_other}.html")
        p = subprocess.run([BIN, "sweep", model, "--dim", "batch=1,2,4", "--dim", f"other={vals}",
                            "--format", "html", "-o", out], capture_output=True, text=True)
        html = open(out).read() if p.returncode == 0 else ""
        charts = html.split("<h2>")[1:]
        charts = [c for c in charts if " against " in c.split("</h2>")[0]]
        for c in charts:
            head = c.split("</h2>")[0]
            lines = len(set(re.findall(r'<polyline[^>]*data-series="(\d+)"', c)))
            want = min(n_other, 24)
            said = f"the first 24 of {n_other} lines" in head
            if not (lines == want and (n_other <= 24 or said)):
                fails.append(f"{n_other} bindings: chart '{head[:60]}' draws {lines} lines (want {want}), "
                             f"heading says so: {said}")
        if not charts:
            fails.append(f"{n_other} bindings: no chart (exit {p.returncode}: {p.stderr[-200:]})")
print("\n".join("FAIL " + f for f in fails) or "cli.sweep_html: ok")
sys.exit(1 if fails else 0)
