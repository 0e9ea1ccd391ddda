#!/usr/bin/env python3
"""`onnxcost MODEL.onnx --measured PROFILE.json` against the profile itself.

ONNX Runtime runs torchvision resnet18 and a small padded net with profiling
on and saves the graph it ran (optimized_model_filepath). onnxcost analyzes
that saved graph with the profile, and every figure it reports is computed
again here from the profile's events, independently:

  * each node's median, p10 and p90 (linear between ranks, numpy's default)
    and run count, the sum of the node medians and the end-to-end median of
    the model_run events; every profile node matched, none left over; a
    duration in whole microseconds (ONNX Runtime truncates them) taken at
    the middle of its microsecond, 0.5 us above, another as it is;
  * the same profile against the model as exported (not the graph ONNX
    Runtime ran): the nodes it cannot match are counted and named, and the
    text report says how to get the right file;
  * a profile written here in ONNX Runtime's documented format for the CUDA
    execution provider joins the same way and names its provider;
  * a file that is not a profile (not JSON, an object, no node events, a
    negative duration, an event without args) is refused with one line
    naming it, exit 2.

usage: ort_profile.py --onnxcost BIN --workdir DIR --mnist MNIST.onnx   (exit 77 without torch/onnxruntime)
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    import torchvision
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
import transformers as oracle  # noqa: E402  (tests/oracle/transformers.py)

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def expected(profile):
    """Per node the durations of its events in the quiet runs, the quiet runs' durations, and every run's: a
    whole number of microseconds (ONNX Runtime truncates each) at the middle of its microsecond. The quiet
    runs (docs/MEASURED.md, "Busy machines"): within 5 % of the slowest of the fastest eighth (rank n // 8 of
    the n sorted); a node event is in the run whose span [ts, ts + dur] holds its start."""
    nodes, runs, spans = {}, [], []
    mid = lambda d: d + 0.5 if float(d).is_integer() else d  # noqa: E731
    for e in profile:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            nodes.setdefault(e["name"][:-len("_kernel_time")], []).append((e["ts"], mid(e["dur"])))
        elif e.get("cat") == "Session" and e.get("name") == "model_run":
            runs.append(mid(e["dur"]))
            spans.append((e["ts"], e["ts"] + mid(e["dur"])))
    level = sorted(runs)[len(runs) // 8] * 1.05 if runs else 0
    quiet = [s for s, r in zip(spans, runs) if r <= level]
    picked = {k: [d for ts, d in v if any(a <= ts <= b for a, b in quiet)] or [d for _, d in v]
              for k, v in nodes.items()}
    return picked, [r for r in runs if r <= level], runs


def onnxcost(binary, *args):
    return subprocess.run([binary] + list(args), capture_output=True, text=True)


def check_join(binary, model, prof_path, binds, tag, provider):
    prof = json.load(open(prof_path))
    nodes, runs, every = expected(prof)
    p = onnxcost(binary, model, "--format", "json", "-q", "--measured", prof_path, *binds)
    if p.returncode != 0:
        check(False, f"{tag}: exit {p.returncode}: {p.stderr.strip()[:200]}")
        return
    doc = json.loads(p.stdout)
    m = doc["measured"]
    bad = []
    for n in doc["nodes"]:
        want = nodes.get(n["name"])
        got = n.get("measured")
        if want is None:
            if got is not None:
                bad.append(f"{n['name']}: measured {got} without an event")
            continue
        w = np.array(want, dtype=float)
        exp = (float(np.percentile(w, 50)), float(np.percentile(w, 10)), float(np.percentile(w, 90)), len(want))
        if not got or not all(close(g, x) for g, x in zip((got["median_us"], got["p10_us"], got["p90_us"]), exp[:3])) \
                or got["runs"] != exp[3]:
            bad.append(f"{n['name']}: {got}, from the profile {exp}")
    check(not bad, f"{tag}: {len(nodes)} nodes' median, p10, p90 and runs as the profile gives them"
                   + (f": {bad[:3]}" if bad else ""))
    total = sum(float(np.percentile(np.array(v, dtype=float), 50)) for v in nodes.values())
    check(m.get("duration_offset_us") == 0.5,
          f"{tag}: the JSON names the half microsecond ({m.get('duration_offset_us')})")
    check(m["nodes_matched"] == len(nodes) and m["profile_nodes_not_in_model"] == 0 and m["first_not_in_model"] is None
          and close(m["sum_of_node_medians_ms"], total / 1e3),
          f"{tag}: all {len(nodes)} profile nodes matched, sum of medians {total / 1e3:.3f} ms "
          f"(onnxcost {m['nodes_matched']} matched, {m['profile_nodes_not_in_model']} not, "
          f"{m['sum_of_node_medians_ms']:.3f} ms)")
    check(m["runs"] == len(every) and m["quiet_runs"] == len(runs)
          and (not runs or (close(m["end_to_end_ms"]["median"], float(np.percentile(np.array(runs, float), 50)) / 1e3)
                            and close(m["end_to_end_ms"]["all_runs_median"],
                                      float(np.percentile(np.array(every, float), 50)) / 1e3))),
          f"{tag}: {len(every)} model_run events, {len(runs)} of them quiet, the end-to-end medians of those and of "
          f"all as the profile gives them")
    check(m["providers"] == provider, f"{tag}: provider {m['providers']!r}")
    t = onnxcost(binary, model, "--measured", prof_path, *binds)
    check(t.returncode == 0 and "Measured (us)" in t.stdout and "Measured by ONNX Runtime" in t.stdout,
          f"{tag}: the text report has the column and the section")
    # every format carries the figures: CSV's column equals the JSON's medians
    c = onnxcost(binary, model, "--measured", prof_path, "--format", "csv", *binds)
    rows = [r.split(",") for r in c.stdout.strip().splitlines()]
    col = rows[0].index("measured_median_us") if rows and "measured_median_us" in rows[0] else None
    by_name = {n["name"]: n.get("measured") for n in doc["nodes"]}
    csv_ok = col is not None and all((r[col] == "") == (by_name.get(r[1]) is None) and
                                     (r[col] == "" or close(float(r[col]), by_name[r[1]]["median_us"]))
                                     for r in rows[1:] if len(r) > col)
    md = onnxcost(binary, model, "--measured", prof_path, "--format", "md", *binds)
    html = onnxcost(binary, model, "--measured", prof_path, "--format", "html", *binds)
    check(csv_ok and "### Measured (ONNX Runtime)" in md.stdout and "measured (us)" in md.stdout and
          "sum of node medians" in html.stdout,
          f"{tag}: CSV's measured_median_us equals the JSON's, Markdown and HTML have the section")
    return doc


def profile(src, opt, workdir, tag, feeds, runs=4):
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(workdir, "prof_" + tag)
    so.optimized_model_filepath = opt
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    for _ in range(runs):
        sess.run(None, feeds)
    return sess.end_profiling()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mnist", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    torch.manual_seed(0)
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    for tag, model in (("resnet18", torchvision.models.resnet18()),
                       ("small", torch.nn.Sequential(torch.nn.Conv2d(3, 20, 3, padding=1), torch.nn.ReLU(),
                                                     torch.nn.Conv2d(20, 36, 3, stride=2, padding=1),
                                                     torch.nn.MaxPool2d(2)))):
        src = os.path.join(a.workdir, f"prof_{tag}.onnx")
        opt = os.path.join(a.workdir, f"prof_{tag}.optimized.onnx")
        oracle.onnx_export(model.eval(), (torch.from_numpy(x),), src, input_names=["x"],
                           dynamic_axes={"x": {0: "batch"}}, opset_version=17)
        prof = profile(src, opt, a.workdir, tag, {"x": x})
        check_join(a.onnxcost, opt, prof, ["--batch", "2"], tag, "CPUExecutionProvider")
        # the model as exported, not the graph ONNX Runtime ran
        p = onnxcost(a.onnxcost, src, "--format", "json", "-q", "--measured", prof, "--batch", "2")
        doc = json.loads(p.stdout) if p.returncode == 0 else {}
        m = doc.get("measured", {})
        t = onnxcost(a.onnxcost, src, "--measured", prof, "--batch", "2")
        md = onnxcost(a.onnxcost, src, "--measured", prof, "--batch", "2", "--format", "md")
        html = onnxcost(a.onnxcost, src, "--measured", prof, "--batch", "2", "--format", "html")
        check(m.get("profile_nodes_not_in_model", 0) > 0 and m.get("first_not_in_model") and
              all("optimized_model_filepath" in x.stdout for x in (t, md, html)),
              f"{tag}, the exported model: {m.get('profile_nodes_not_in_model')} profile nodes not in it, named, "
              "and the text says which file to analyze")

    # a CUDA execution provider's profile, written in ONNX Runtime's format
    mn = onnx.load(a.mnist)
    names = [n.name for n in mn.graph.node if n.name]
    events, durs = [], {}
    loaded = (2, 5, 6)  # runs another process slowed 1.6x: their events are left out
    for r in range(10):
        t0 = 1000 * r
        events.append({"cat": "Session", "pid": 1, "tid": 1, "dur": (80 if r in loaded else 50 + r % 2), "ts": t0,
                       "ph": "X", "name": "model_run", "args": {}})
        for k, nm in enumerate(names):
            d = (3 + k + (r * 5) % 4 + (0.25 if r == 1 else 0)) * (1.6 if r in loaded else 1)  # finer durations
            if r == 9:
                d = (3 + k) * 1.02  # a quiet run's events are all taken, whatever they hold
            durs.setdefault(nm, []).append(d)
            events.append({"cat": "Node", "pid": 1, "tid": 1, "dur": d, "ts": t0 + k, "ph": "X",
                           "name": nm + "_kernel_time",
                           "args": {"op_name": next(n.op_type for n in mn.graph.node if n.name == nm),
                                    "provider": "CUDAExecutionProvider"}})
            events.append({"cat": "Node", "pid": 1, "tid": 1, "dur": 1, "ts": t0 + k, "ph": "X",
                           "name": nm + "_fence_before", "args": {"op_name": "x"}})
    cuda = os.path.join(a.workdir, "prof_cuda_mnist.json")
    json.dump(events, open(cuda, "w"))
    check_join(a.onnxcost, a.mnist, cuda, [], "mnist, CUDA EP profile", "CUDAExecutionProvider")

    # not profiles
    bad = {"not_json": "xx", "object": '{"cat": "Node"}', "no_nodes": "[]",
           "negative": json.dumps([{"cat": "Node", "name": names[0] + "_kernel_time", "dur": -1,
                                    "args": {"op_name": "Conv", "provider": "CPUExecutionProvider"}}]),
           "no_args": json.dumps([{"cat": "Node", "name": names[0] + "_kernel_time", "dur": 3}])}
    for tag, text in bad.items():
        path = os.path.join(a.workdir, f"prof_bad_{tag}.json")
        open(path, "w").write(text)
        p = onnxcost(a.onnxcost, a.mnist, "--measured", path)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and path in lines[0] and not p.stdout,
              f"bad profile '{tag}': exit {p.returncode}, {lines[:1]}")
    print(f"{'FAIL' if failures else 'ok'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
