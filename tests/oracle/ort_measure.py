#!/usr/bin/env python3
"""`onnxcost measure MODEL.onnx` against ONNX Runtime and the files it keeps.

onnxcost measure runs the model in ONNX Runtime (through the Python driver
python/onnxcost/ort_measure.py) and reports the graph ONNX Runtime ran,
joined to its profile. Checked here, with expectations taken from the kept
profile and from the model file, never from onnxcost:

  * the inputs were made at the shapes the bindings give (--batch, --dim,
    and 1 for an unbound dim, with a note saying so);
  * the profile holds exactly --reps runs: the warm-up runs' events are
    gone, every node has --reps events;
  * every node of the graph ONNX Runtime ran has a row and every profile
    node a match; each node's median and the end-to-end median are those
    of the kept profile's events;
  * the record of how it ran (ONNX Runtime's version, threads, optimization
    level, warm-up, model) is in the report, and the arena's peak is the
    largest mem_in_use_peak of the node events, and onnxcost's replay of the
    arena is not below it and within 5 % and its allowance (the fixture, an
    attention block, a 1-D and a 3-D convolution);
  * options of analyze pass through (--format csv, --depth);
  * the temporary folder is removed; a missing Python, a Python without
    ONNX Runtime, an absent execution provider, a missing model and the
    model not first each give one line on stderr and exit 2.

usage: ort_measure.py --onnxcost BIN --workdir DIR   (exit 77 without torch/onnxruntime)
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
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


def run(binary, *args, env=None):
    """onnxcost measure with this Python (which has ONNX Runtime) unless --python says otherwise"""
    env = dict(env or os.environ, ONNXCOST_PYTHON=sys.executable)
    return subprocess.run([binary, "measure"] + list(args), capture_output=True, text=True, env=env)


def input_shapes(path, binds):
    """Each graph input's shape with its dim_params bound (1 when unbound)."""
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    out = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        out[i.name] = [d.dim_value if d.HasField("dim_value") else binds.get(d.dim_param, 1)
                       for d in i.type.tensor_type.shape.dim]
    return out


def mid(d):
    """a duration as onnxcost takes it: whole microseconds (ONNX Runtime truncates each) at their middle"""
    return d + 0.5 if float(d).is_integer() else d


def events_of(profile, quiet_only=False):
    """node durations by name, the runs' durations, the record, the arena peaks; quiet_only: each node's
    events inside a quiet run only, and the quiet runs only (docs/MEASURED.md, "Busy machines": the runs
    within 5 % of the slowest of the fastest eighth, rank n // 8 of the n sorted)"""
    nodes, runs, spans, record, peaks = {}, [], [], None, []
    for e in profile:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            nodes.setdefault(e["name"][:-len("_kernel_time")], []).append((e["ts"], mid(e["dur"])))
            if "mem_in_use_peak" in e.get("args", {}):
                peaks.append(int(e["args"]["mem_in_use_peak"]))
        elif e.get("cat") == "Session" and e.get("name") == "model_run":
            runs.append(mid(e["dur"]))
            spans.append((e["ts"], e["ts"] + mid(e["dur"])))
        elif e.get("cat") == "onnxcost":
            record = e["args"]
    if not quiet_only or not runs:
        return {k: [d for _, d in v] for k, v in nodes.items()}, runs, record, peaks
    level = sorted(runs)[len(runs) // 8] * 1.05
    quiet = [s for s, r in zip(spans, runs) if r <= level]
    inside = {k: [d for ts, d in v if any(a <= ts <= b for a, b in quiet)] for k, v in nodes.items()}
    return ({k: (q or [d for _, d in nodes[k]]) for k, q in inside.items()}, [r for r in runs if r <= level],
            record, peaks)


def check_arena(tag, opt, m, peaks):
    """onnxcost's replay of ONNX Runtime's CPU arena against the peak the
    profile measured: never below it, and close; the weights pre-packed from
    MLAS's packed size (N rounded up to 16, times K floats, 64-byte aligned),
    per kernel that reads a 2-D float weight as B."""
    inits = {i.name: i for i in opt.graph.initializer}
    want_packed, kernels = 0, 0
    for n in opt.graph.node:
        if (n.domain, n.op_type) not in (("", "MatMul"), ("", "Gemm"), ("com.microsoft", "FusedMatMul"),
                                         ("com.microsoft", "FusedGemm")) or len(n.input) < 2:
            continue
        w = inits.get(n.input[1])
        if w is None or len(w.dims) != 2 or w.data_type != onnx.TensorProto.FLOAT:
            continue
        trans = any(a.name == "transB" and a.i for a in n.attribute) and n.op_type != "MatMul"
        k, nn = (w.dims[1], w.dims[0]) if trans else (w.dims[0], w.dims[1])
        want_packed += -(-(-(-nn // 16) * 16 * k * 4) // 64) * 64
        kernels += 1
    r = m["arena"].get("replayed") or {}
    check(r.get("prepacked_weight_bytes") == want_packed and r.get("prepacked_kernels") == kernels,
          f"{tag}: pre-packed weights {r.get('prepacked_weight_bytes')} B by {r.get('prepacked_kernels')} kernels, "
          f"from the graph {want_packed} B by {kernels}")
    got = r.get("peak_bytes")
    check(peaks and m["arena"]["in_use_peak_bytes"] == max(peaks) and got is not None
          and max(peaks) <= got <= max(peaks) * 1.05 + r["allowance_bytes"] and r.get("complete") is True,
          f"{tag}: arena peak {max(peaks) if peaks else None} B measured (the largest mem_in_use_peak), "
          f"replayed {got} B: not below, within 5 % and the allowance")


def check_measure(binary, src, workdir, tag, binds, want_binds, reps=5, warmup=2):
    save = os.path.join(workdir, "save_" + tag)
    shutil.rmtree(save, ignore_errors=True)
    p = run(binary, src, *binds, "--threads", "1", "--reps", str(reps), "--warmup", str(warmup), "--save", save,
            "--format", "json", "-q")
    if p.returncode != 0:
        check(False, f"{tag}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return
    doc = json.loads(p.stdout)
    stem = os.path.basename(src)[:-5]
    prof_path, opt_path = os.path.join(save, stem + ".profile.json"), os.path.join(save, stem + ".ort.onnx")
    check(os.path.isfile(prof_path) and os.path.isfile(opt_path) and os.path.isfile(opt_path[:-5] + ".data")
          and os.path.getsize(opt_path) < 100000,
          f"{tag}: --save keeps the graph (its weights apart, in .ort.data) and the profile")
    prof = json.load(open(prof_path))
    nodes, runs, record, peaks = events_of(prof)
    quiet_nodes, quiet_runs, _, _ = events_of(prof, quiet_only=True)
    want = input_shapes(src, want_binds)
    check(record is not None and {k: v["shape"] for k, v in record["inputs"].items()} == want,
          f"{tag}: inputs made at {want}" + (f" (ran {record['inputs']})" if record else ""))
    check(len(runs) == reps and all(len(v) == reps for v in nodes.values()),
          f"{tag}: {reps} runs in the profile after {warmup} warm-up runs left out "
          f"({len(runs)} model_run events, per node {sorted({len(v) for v in nodes.values()})})")
    m = doc["measured"]
    r = m.get("run") or {}
    check(r.get("version") == ort.__version__ and r.get("opt_level") == "all" and r.get("intra_op_threads") == 1
          and r.get("warmup_runs_left_out") == warmup and r.get("model") == src and m["runs"] == reps
          and m["profile"] == prof_path,
          f"{tag}: the record says ONNX Runtime {ort.__version__}, level all, 1 thread, {warmup} warm-up runs, "
          f"the model: {r}")
    opt = onnx.load(opt_path, load_external_data=False)
    graph_names = {n.name for n in opt.graph.node}
    check(set(nodes) <= graph_names and m["profile_nodes_not_in_model"] == 0 and m["nodes_matched"] == len(nodes)
          and m["nodes"] == len(opt.graph.node) and m["nodes_with_kernel_not_measured"] == 0,
          f"{tag}: the {len(opt.graph.node)} nodes ONNX Runtime ran have rows, its {len(nodes)} profiled nodes "
          f"all matched ({m['nodes_matched']} matched, {m['profile_nodes_not_in_model']} not)")
    bad = []
    for n in doc["nodes"]:
        d = quiet_nodes.get(n["name"])
        got = n.get("measured")
        if d is None:
            if got is not None:
                bad.append(n["name"])
            continue
        if not got or not close(got["median_us"], float(np.percentile(np.array(d, float), 50))) \
                or got["runs"] != len(d):
            bad.append(f"{n['name']}: {got}")
    total = sum(float(np.percentile(np.array(v, float), 50)) for v in quiet_nodes.values())
    e2e = float(np.percentile(np.array(quiet_runs, float), 50))
    every = float(np.percentile(np.array(runs, float), 50))
    check(not bad and close(m["sum_of_node_medians_ms"], total / 1e3) and m["quiet_runs"] == len(quiet_runs)
          and close(m["end_to_end_ms"]["median"], e2e / 1e3)
          and close(m["end_to_end_ms"]["all_runs_median"], every / 1e3) and close(m["load_ratio"], every / e2e),
          f"{tag}: the quiet runs' node medians, their sum {total / 1e3:.3f} ms, the end-to-end median over "
          f"{len(quiet_runs)} quiet runs of {len(runs)} and every run's, from the kept profile"
          + (f": {bad[:3]}" if bad else ""))
    check_arena(tag, opt, m, peaks)
    return doc


def check_stable_rule():
    """ort_measure.stable on passes made by hand: what it must call stable
    and what not (its rule: docs/MEASURED.md, "Noisy machines")."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                    "python", "onnxcost"))
    import ort_measure as om
    rng = np.random.default_rng(1)
    steady = [list(10 + 0.05 * rng.standard_normal(10)) for _ in range(4)]           # 0.5 % noise
    cases = [
        ("steady runs", steady, 0.02, True),
        ("too few passes", steady[:3], 0.02, False),
        ("too few runs", [p[:2] for p in steady], 0.02, False),
        ("two levels within each pass", [[10, 15] * 5 for _ in range(4)], 0.02, False),   # a load that comes and goes
        ("a drift", [list(np.full(10, 10.0 + 0.5 * k)) for k in range(6)], 0.02, False),  # 5 % a pass
        ("whole passes moved", [list(np.full(10, v)) for v in (10, 13, 10, 13, 10, 13)], 0.02, False),
        ("one pass disturbed of eight", [list(np.full(10, 13.0 if k == 3 else 10.0)) for k in range(8)], 0.02, True),
        ("a wide tolerance", [[10, 10.5] * 5 for _ in range(4)], 0.1, True),
    ]
    bad = [name for name, passes, tol, want in cases if om.stable(passes, tol) != want]
    check(not bad, f"the stability rule on {len(cases)} hand-made cases" + (f": wrong on {bad}" if bad else ""))
    # on a busy machine: the quiet runs (within 5 % of the slowest of the fastest eighth) known within the
    # tolerance, not drifting between the halves of the passes, at least 20 of them in 4 passes
    between = [list(10 + 0.05 * rng.standard_normal(4)) + [15.0] * 6 for _ in range(6)]  # 24 quiet of 60
    quiet_cases = [
        ("a load that comes and goes, steady between its bursts", between, 0.02, True),
        ("too few quiet runs", [[10.0, 10.0] + [15.0] * 8 for _ in range(6)], 0.02, False),
        ("too few passes", between[:3] + [[15.0] * 10], 0.02, False),
        ("the quiet runs drift", [[10.0] * 4 + [15.0] * 6] * 3 + [[10.45] * 4 + [15.0] * 6] * 3, 0.02, False),
    ]
    bad = [name for name, passes, tol, want in quiet_cases if om.quiet_stable(passes, tol) != want]
    check(not bad and not om.stable(between, 0.02),
          f"the quiet runs' stability rule on {len(quiet_cases)} hand-made cases" + (f": wrong on {bad}" if bad else ""))


def check_passes(binary, src, workdir):
    """--reps auto (the default): passes until stable or --max-seconds; the
    record and the reports carry the spread; calibrate leaves noisy runs out."""
    check_stable_rule()
    save = os.path.join(workdir, "auto")
    p = run(binary, src, "--batch", "2", "--threads", "1", "--save", save, "--format", "json")
    doc = json.loads(p.stdout) if p.returncode == 0 else {"measured": {}}
    m, r = doc["measured"], doc["measured"].get("run") or {}
    _, runs, args, _ = events_of(json.load(open(os.path.join(save, "small.profile.json")))) if p.returncode == 0 \
        else ({}, [], {}, [])
    args = args or {}
    pm = args.get("pass_median_ms") or [1]
    check(p.returncode == 0 and r.get("stopped") in ("stable", "quiet runs stable", "time limit")
          and r.get("passes", 0) >= 4
          and len(pm) == r["passes"] and m["runs"] == len(runs) == args.get("runs")
          and close(r.get("pass_ratio", 0), max(pm) / min(pm))
          and close(r.get("pass_median_ratio", 0), float(np.median(pm)) / min(pm)),
          f"--reps auto: {m.get('runs')} runs in {r.get('passes')} passes, the profile's model_run events "
          f"{len(runs)}, stopped '{r.get('stopped')}', pass ratio {r.get('pass_ratio')} (the record's medians give "
          f"{max(pm) / min(pm):.4f})")
    t = run(binary, src, "--batch", "2", "--threads", "1", "--max-seconds", "1", "--tolerance", "0.0001")
    line = [ln for ln in t.stdout.splitlines() if ln.startswith("  end to end (ms)")]
    check(t.returncode == 0 and line and "NOT STABLE within 0.0001 %" in line[0],
          f"a tolerance no machine meets: NOT STABLE by --max-seconds ({line[0][:160] if line else t.stderr[-200:]})")
    for bad_args, want in ((["--reps", "many"], "auto or an integer"), (["--max-seconds", "0"], "above 0, up to 3600"),
                           (["--tolerance", "0"], "a percentage above 0")):
        b = run(binary, src, "--batch", "2", *bad_args)
        check(b.returncode == 2 and want in b.stderr and len(b.stderr.strip().splitlines()) == 1,
              f"{' '.join(bad_args)}: one line, exit 2 ({b.stderr.strip()[:120]})")
    # calibrate weighs each record by how sure its quiet runs are (docs/MEASURED.md, "Busy machines"):
    # min(1, quiet / 10) / (1 + (ln load / ln 1.1)^2); fewer than 3 quiet runs, or a record written before
    # quiet runs were kept whose median pass ran 1.5x the fastest, is left out, named; --keep-noisy fits all at 1
    if p.returncode != 0:
        return
    clean, loaded, few, old = (os.path.join(workdir, f + ".json") for f in ("clean", "loaded", "few", "old"))
    # the clean record is clean by its figures, whatever this machine's load did to the run above
    m = doc["measured"]
    m["run"]["stopped"], m["run"]["pass_median_ratio"], m["quiet_runs"], m["load_ratio"] = "stable", 1.0, 20, 1.0
    json.dump(doc, open(clean, "w"))
    slow = json.loads(json.dumps(doc))  # the same run 2x slower everywhere, under a load of 1.3x
    slow["measured"]["load_ratio"] = 1.3
    for n in slow["nodes"]:
        if n.get("measured"):
            n["measured"]["median_us"] *= 2
    slow["measured"]["end_to_end_ms"]["median"] *= 2
    slow["measured"]["sum_of_node_medians_ms"] *= 2
    slow["measured"]["run"]["model"] = "another session"  # not a slower session of the clean run
    json.dump(slow, open(loaded, "w"))
    m["quiet_runs"] = 2
    json.dump(doc, open(few, "w"))
    del m["quiet_runs"], m["load_ratio"]
    m["run"]["pass_median_ratio"] = 1.5
    json.dump(doc, open(old, "w"))

    def calibrate(*files, keep=False):
        c = subprocess.run([binary, "calibrate", *files, "--cpu", "--format", "json"] + (["--keep-noisy"] if keep else []),
                           capture_output=True, text=True)
        rep = json.loads(c.stdout) if c.returncode == 0 else {"files": []}
        return {f["path"]: f for f in rep["files"]}, c.stderr.splitlines()

    want_w = 1 / (1 + (np.log(1.3) / np.log(1.1)) ** 2)
    r0, e0 = calibrate(clean, loaded, few, old)
    r1, e1 = calibrate(clean, loaded, few, old, keep=True)
    role = {k: v["role"] for k, v in r0.items()}
    left = [ln for ln in e0 if "left out of the fit" in ln]
    note = [ln for ln in e0 if "fitted at weight" in ln]
    check(role == {clean: "fit", loaded: "fit", few: "noisy", old: "noisy"}
          and r0[clean]["weight"] == 1 and abs(r0[loaded]["weight"] - want_w) < 1e-9
          and len(left) == 2 and any(few in ln and "2 quiet runs" in ln for ln in left)
          and any(old in ln and "1.50x" in ln for ln in left)
          and len(note) == 1 and loaded in note[0] and f"{want_w:.2f}" in note[0] and "1.30x" in note[0],
          f"calibrate fits a loaded record at weight {want_w:.3f} and leaves out the unsure ones, naming each "
          f"({ {k: (v['role'], v['weight']) for k, v in r0.items()} }; {left + note})")
    check(all(v["role"] == "fit" and v["weight"] == 1 for v in r1.values()) and len(r1) == 4
          and not [ln for ln in e1 if "left out" in ln or "fitted at weight" in ln],
          f"--keep-noisy fits every record at weight 1 ({ {k: (v['role'], v['weight']) for k, v in r1.items()} })")
    # the weight reaches the fit: its loss at the starting factors, the time-weighted mean squared log error
    # over the points, is each record's own loss weighed by its measured time x its weight:
    #   L(A + B) = (L_A T_A + w L_B T_B) / (T_A + w T_B)
    # (whether a fit then moves less toward B is not a rule: the search is not convex). On a fixed machine
    # (the committed probe record), not --cpu, which probes again on every call
    machine = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs",
                           "results", "cpu-machine.json")

    def loss(*files, keep=False):
        c = subprocess.run([binary, "calibrate", *files, "--machine", machine, "--format", "json"]
                           + (["--keep-noisy"] if keep else []), capture_output=True, text=True)
        return json.loads(c.stdout) if c.returncode == 0 else {}
    la, lb, both, flat = loss(clean), loss(loaded), loss(clean, loaded), loss(clean, loaded, keep=True)
    ta = (la.get("files") or [{}])[0].get("measured_s", 0)
    tb = (lb.get("files") or [{}])[0].get("measured_s", 0)
    la, lb = la.get("loss_before"), lb.get("loss_before")
    ok = la is not None and lb is not None and ta > 0 and tb > 0 and both and flat
    want_both = (la * ta + want_w * lb * tb) / (ta + want_w * tb) if ok else None
    want_flat = (la * ta + lb * tb) / (ta + tb) if ok else None
    check(ok and abs(both["loss_before"] - want_both) <= 1e-9 * max(1, want_both)
          and abs(flat["loss_before"] - want_flat) <= 1e-9 * max(1, want_flat),
          f"the loaded record weighs {want_w:.3f} in the fit's loss: {both.get('loss_before') if both else None} "
          f"= (L_A T_A + w L_B T_B) / (T_A + w T_B) = {want_both}; at --keep-noisy "
          f"{flat.get('loss_before') if flat else None} = {want_flat}")
    # every record left out: calibrate says so, not that nothing was measured
    c = subprocess.run([binary, "calibrate", few, "--cpu", "--format", "json"], capture_output=True, text=True)
    errs = [ln for ln in c.stderr.splitlines() if ln.startswith("onnxcost: error:")]
    check(c.returncode == 2 and len(errs) == 1 and "no record to fit on: all 1 were left out" in errs[0]
          and "--keep-noisy" in errs[0], f"calibrate on unsure records only names why ({c.stderr.strip()[-200:]})")
    # the calibrated spec keeps the probed machine's one-thread figures: --threads scales it
    cal = os.path.join(workdir, "calibrated.json")
    c = subprocess.run([binary, "calibrate", clean, "--cpu", "-o", cal, "--format", "json"], capture_output=True,
                       text=True)
    t1 = subprocess.run([binary, src, "--batch", "2", "--gpu-spec", cal, "--threads", "1"], capture_output=True,
                        text=True)
    check(c.returncode == 0 and t1.returncode == 0 and ", 1 thread from" in t1.stdout
          and json.load(open(cal)).get("probe", {}).get("one_thread", {}).get("fp32_gflops", 0) > 0,
          f"a calibrated spec predicts at --threads 1 ({(t1.stderr or c.stderr).strip()[:160]})")
    # measure with that calibrated CPU spec predicts at the threads it ran with, as the analysis of its own saved
    # graph and profile at --threads 1 does (calibrate fitted the record at its threads)
    save1 = os.path.join(workdir, "spec1")
    m1 = run(binary, src, "--batch", "2", "--threads", "1", "--reps", "3", "--warmup", "1", "--gpu-spec", cal,
             "--save", save1, "--format", "json")
    a1 = subprocess.run([binary, os.path.join(save1, "small.ort.onnx"), "--batch", "2", "--measured",
                         os.path.join(save1, "small.profile.json"), "--gpu-spec", cal, "--threads", "1", "--format",
                         "json", "-q"], capture_output=True, text=True)
    got = json.loads(m1.stdout)["measured"].get("predicted_ms") if m1.returncode == 0 else None
    want = json.loads(a1.stdout)["measured"].get("predicted_ms") if a1.returncode == 0 else None
    check(got is not None and want is not None and close(got, want),
          f"measure with a calibrated CPU spec predicts at its --threads 1: {got} ms, the analysis at --threads 1 "
          f"{want} ms ({(m1.stderr or a1.stderr).strip()[:160]})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 20, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(20, 36, 3, stride=2, padding=1), torch.nn.MaxPool2d(2),
                              torch.nn.Flatten(), torch.nn.Linear(36 * 16 * 16, 10))
    src = os.path.join(a.workdir, "small.onnx")
    oracle.onnx_export(net.eval(), (torch.randn(2, 3, 64, 64),), src, input_names=["x"],
                       dynamic_axes={"x": {0: "batch"}}, opset_version=17)
    check_measure(a.onnxcost, src, a.workdir, "--batch 2", ["--batch", "2"], {"batch": 2})
    check_measure(a.onnxcost, src, a.workdir, "--dim batch=3", ["--dim", "batch=3"], {"batch": 3})

    # nodes without names: ONNX Runtime's profile calls them <op>_<index>; they pair
    # with the graph's unnamed nodes of that op type in execution order
    f = onnx.TensorProto.FLOAT
    rng = np.random.default_rng(0)
    w = [onnx.numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), f"w{k}") for k in range(3)]
    nodes = []
    prev = "x"
    for k in range(3):
        nodes += [onnx.helper.make_node("MatMul", [prev, f"w{k}"], [f"m{k}"]),
                  onnx.helper.make_node("Relu", [f"m{k}"], [f"r{k}"])]
        prev = f"r{k}"
    g = onnx.helper.make_graph(nodes, "unnamed", [onnx.helper.make_tensor_value_info("x", f, [8, 64])],
                               [onnx.helper.make_tensor_value_info(prev, f, [8, 64])], initializer=w)
    un = os.path.join(a.workdir, "unnamed.onnx")
    onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)]), un)
    save = os.path.join(a.workdir, "save_unnamed")
    p = run(a.onnxcost, un, "--opt-level", "none", "--reps", "4", "--warmup", "1", "--save", save, "--format", "json",
            "-q")
    doc = json.loads(p.stdout) if p.returncode == 0 else {"measured": {}, "nodes": []}
    m = doc["measured"]
    prof = json.load(open(os.path.join(save, "unnamed.profile.json"))) if p.returncode == 0 else []
    quiet_nodes = events_of(prof, quiet_only=True)[0]
    events = {}
    for e in prof:  # per op type, the profile's nodes in execution order (their quiet runs' events)
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            events.setdefault(e["args"]["op_name"], {})[e["name"]] = quiet_nodes[e["name"][:-len("_kernel_time")]]
    want = {op: [float(np.percentile(np.array(v, float), 50)) for v in d.values()] for op, d in events.items()}
    got = {}
    for n in doc["nodes"]:
        got.setdefault(n["op_type"], []).append(n["measured"]["median_us"] if n.get("measured") else None)
    check(p.returncode == 0 and m.get("profile_nodes_not_in_model") == 0 and m.get("nodes_matched") == 6
          and got == want, f"unnamed nodes paired in execution order: {got} vs {want}")

    # an attention block: reshapes to a shape computed at run time (ONNX Runtime
    # cannot reuse a freed buffer for those), softmax on the last axis and on
    # another (which takes scratch), layer norm, a residual: the arena replayed
    h = onnx.helper
    rng = np.random.default_rng(1)
    ws = [onnx.numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32) * 0.1, n)
          for n in ("wq", "wk", "wv", "wo")]
    ws += [onnx.numpy_helper.from_array(np.ones(64, np.float32), "gamma"),
           onnx.numpy_helper.from_array(np.zeros(64, np.float32), "beta"),
           onnx.numpy_helper.from_array(np.array([0], np.int64), "i0"),
           onnx.numpy_helper.from_array(np.array([16, 4, 16], np.int64), "tail"),
           onnx.numpy_helper.from_array(np.array([0, 16, 64], np.int64), "back")]
    nodes = [h.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], axis=-1, name="ln"),
             h.make_node("Shape", ["x"], ["shp"], name="shape"),
             h.make_node("Gather", ["shp", "i0"], ["b"], axis=0, name="batch"),
             h.make_node("Concat", ["b", "tail"], ["heads"], axis=0, name="heads")]
    for t, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [h.make_node("MatMul", ["ln", "w" + t], [t], name="proj_" + t),
                  h.make_node("Reshape", [t, "heads"], [t + "r"], name="split_" + t),
                  h.make_node("Transpose", [t + "r"], [t + "h"], perm=perm, name="heads_" + t)]
    nodes += [h.make_node("MatMul", ["qh", "kh"], ["sc"], name="scores"),
              h.make_node("Softmax", ["sc"], ["p"], axis=-1, name="softmax"),
              h.make_node("Softmax", ["sc"], ["p1"], axis=1, name="softmax_heads"),
              h.make_node("Add", ["p", "p1"], ["pp"], name="mix"),
              h.make_node("MatMul", ["pp", "vh"], ["o"], name="context"),
              h.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3], name="merge"),
              h.make_node("Reshape", ["ot", "back"], ["om"], name="flat"),
              h.make_node("MatMul", ["om", "wo"], ["y0"], name="proj_o"),
              h.make_node("Add", ["y0", "x"], ["y"], name="residual")]
    g = h.make_graph(nodes, "attention", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 16, 64])],
                     [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 16, 64])], initializer=ws)
    att = os.path.join(a.workdir, "attention.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), att)
    save = os.path.join(a.workdir, "save_attention")
    p = run(a.onnxcost, att, "--batch", "3", "--threads", "1", "--reps", "3", "--warmup", "1", "--save", save,
            "--format", "json", "-q")
    if p.returncode == 0:
        _, _, _, peaks = events_of(json.load(open(os.path.join(save, "attention.profile.json"))))
        check_arena("attention block", onnx.load(os.path.join(save, "attention.ort.onnx"), load_external_data=False),
                    json.loads(p.stdout)["measured"], peaks)
    else:
        check(False, f"attention block: exit {p.returncode}: {p.stderr.strip()[:300]}")

    # a 1-D and a 3-D convolution (MLAS's working buffer of each, in its 1-D
    # form as a 2-D one of height 1, and its 3-D im2col): the arena replayed
    ws = [onnx.numpy_helper.from_array(rng.standard_normal((16, 32, 3)).astype(np.float32) * 0.1, "w1"),
          onnx.numpy_helper.from_array(rng.standard_normal((8, 16, 3, 3, 3)).astype(np.float32) * 0.1, "w3")]
    nodes = [h.make_node("Conv", ["a", "w1"], ["c1"], pads=[1, 1], name="conv1d"),
             h.make_node("Conv", ["v", "w3"], ["c3"], pads=[1, 1, 1, 1, 1, 1], strides=[1, 2, 2], name="conv3d")]
    g = h.make_graph(nodes, "convnd", [h.make_tensor_value_info("a", onnx.TensorProto.FLOAT, [2, 32, 100]),
                                       h.make_tensor_value_info("v", onnx.TensorProto.FLOAT, [1, 16, 6, 16, 16])],
                     [h.make_tensor_value_info("c1", onnx.TensorProto.FLOAT, None),
                      h.make_tensor_value_info("c3", onnx.TensorProto.FLOAT, None)], initializer=ws)
    nd = os.path.join(a.workdir, "convnd.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), nd)
    save = os.path.join(a.workdir, "save_convnd")
    p = run(a.onnxcost, nd, "--threads", "1", "--reps", "3", "--warmup", "1", "--save", save, "--format", "json", "-q")
    if p.returncode == 0:
        _, _, _, peaks = events_of(json.load(open(os.path.join(save, "convnd.profile.json"))))
        check_arena("1-D and 3-D convolutions", onnx.load(os.path.join(save, "convnd.ort.onnx"),
                                                          load_external_data=False),
                    json.loads(p.stdout)["measured"], peaks)
    else:
        check(False, f"1-D and 3-D convolutions: exit {p.returncode}: {p.stderr.strip()[:300]}")

    # unbound: measured at 1, and a note says so; the temporary folder goes
    tmp = os.path.join(a.workdir, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    p = run(a.onnxcost, src, "--reps", "2", "--warmup", "0", "--format", "json", env=env)
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    check(p.returncode == 0 and "measured at 1" in p.stderr and "'batch'" in p.stderr
          and doc.get("bindings", {}).get("batch") == 1 and doc["measured"]["profile"] is None,
          f"unbound batch: measured at 1 with a note ({p.stderr.strip()[:200]}); no profile path without --save")
    left = [f for f in os.listdir(tmp) if f.startswith("onnxcost-measure")]  # others write there too
    check(p.returncode == 0 and not left, f"the temporary folder is removed ({left})")

    # no Python given: a build in a checkout set up by .ci/install-deps uses its .venv
    setup = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".venv",
                         "bin", "python3")
    if os.access(setup, os.X_OK):
        env = {k: v for k, v in os.environ.items() if k != "ONNXCOST_PYTHON"}
        env["PATH"] = "/nonexistent"  # and no python3 on the PATH to fall back on
        p = subprocess.run([a.onnxcost, "measure", src, "--batch", "1", "--reps", "2", "--format", "json", "-q"],
                           capture_output=True, text=True, env=env)
        check(p.returncode == 0 and json.loads(p.stdout)["measured"]["run"] is not None,
              f"no --python nor ONNXCOST_PYTHON: the setup's .venv runs it ({p.stderr.strip()[:200]})")

    # with a machine: each node's predicted time over its measured one, and the
    # HTML roofline's rings (one per node timed both ways)
    hand = os.path.join(a.workdir, "hand_machine.json")
    json.dump({"name": "hand CPU", "kind": "cpu", "fp32": 0.1, "memory_gib": 8, "bandwidth_gbs": 10,
               "caches": [{"kib": 64, "bandwidth_gbs": 100}]}, open(hand, "w"))
    save = os.path.join(a.workdir, "save_--batch 2")
    opt, prof = os.path.join(save, "small.ort.onnx"), os.path.join(save, "small.profile.json")
    j = subprocess.run([a.onnxcost, opt, "--batch", "2", "--measured", prof, "--machine", hand, "--format", "json",
                        "-q"], capture_output=True, text=True)
    h = subprocess.run([a.onnxcost, opt, "--batch", "2", "--measured", prof, "--machine", hand, "--format", "html",
                        "-q"], capture_output=True, text=True)
    doc = json.loads(j.stdout) if j.returncode == 0 else {"nodes": []}
    bad, rings = [], 0
    for n in doc["nodes"]:
        g, me = n.get("gpu"), n.get("measured")
        if not g or not me or g.get("bound") in (None, "none"):
            continue
        if me["median_us"] <= 0:  # a node faster than the profiler's microsecond: no ratio, no ring
            if me["predicted_over_measured"] is not None:
                bad.append(n["name"])
            continue
        if abs(me["predicted_over_measured"] - g["time_s"] * 1e6 / me["median_us"]) > 1e-9:
            bad.append(n["name"])
        rings += n["flops"] > 0 and n["arithmetic_intensity"] > 0
    check(j.returncode == 0 and h.returncode == 0 and not bad and rings > 0
          and h.stdout.count('class="measured"') == rings,
          f"with a machine: predicted / measured per node, {rings} measured rings on the roofline "
          f"({h.stdout.count('class=' + chr(34) + 'measured' + chr(34))} drawn)" + (f": {bad}" if bad else ""))

    check_passes(a.onnxcost, src, a.workdir)

    # analyze's options pass through
    c = run(a.onnxcost, src, "--batch", "2", "--reps", "2", "--format", "csv", "-q")
    rows = c.stdout.strip().splitlines()
    d = run(a.onnxcost, src, "--batch", "2", "--reps", "2", "--depth", "1", "-q")
    check(c.returncode == 0 and rows and "measured_median_us" in rows[0].split(",") and d.returncode == 0
          and "Measured by ONNX Runtime" in d.stdout and "run by onnxcost measure" in d.stdout,
          "--format csv and --depth pass through to the report")

    # one line and exit 2
    fake = os.path.join(a.workdir, "python-without-ort")
    with open(fake, "w") as f:  # the same Python with no site-packages: no numpy, no onnxruntime
        f.write(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IEXEC)
    # a sequence input, its elements' shape known: said to be a sequence (it had said "no known shape")
    seq = os.path.join(a.workdir, "sequence_input.onnx")
    sg = onnx.helper.make_graph([onnx.helper.make_node("SequenceAt", ["xs", "i"], ["y"])], "seq",
                                [onnx.helper.make_tensor_sequence_value_info("xs", onnx.TensorProto.FLOAT, [2, 3])],
                                [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])],
                                initializer=[onnx.helper.make_tensor("i", onnx.TensorProto.INT64, [], [0])])
    onnx.save(onnx.helper.make_model(sg, opset_imports=[onnx.helper.make_opsetid("", 17)]), seq)
    cases = [("a sequence input", [seq], "input 'xs' is a sequence of tensors, not a tensor"),
             ("no such Python", [src, "--batch", "1", "--python", os.path.join(a.workdir, "nopython")],
              "cannot run Python"),
             ("a Python without ONNX Runtime", [src, "--batch", "1", "--python", fake], "pip install onnxruntime"),
             ("a missing model", [os.path.join(a.workdir, "missing.onnx")], "missing.onnx"),
             ("the model not first", ["--batch", "1", src], "model first")]
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        cases.append(("an absent provider", [src, "--batch", "1", "--ep", "cuda"], "CUDAExecutionProvider"))
    for what, args, needle in cases:
        p = run(a.onnxcost, *args, "-q")
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and needle in lines[0] and not p.stdout,
              f"{what}: exit {p.returncode}, {lines[:2]}")
    print(f"{'FAIL' if failures else 'ok'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
