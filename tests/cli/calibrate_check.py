#!/usr/bin/env python3
"""cli.calibrate — `onnxcost calibrate` on replay results written here by
hand: each node's time made by the roofline of docs/MODEL.md with known
factors on the built-in H100 SXM (FP32 67 TFLOP/s, TF32-TC 494.7, 3,350
GB/s), so the fit must find them again; the error figures before the fit
computed here from the default factors; the spec file read back by
--gpu-spec and the analysis's node times checked against the formula; the
options that override a calibrated file; and the one-line refusals.

Usage: calibrate_check.py ONNXCOST REPO
"""
import json
import math
import os
import subprocess
import sys
import tempfile

bin_, src = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
fails = []

FP32, TF32, BW = 67e12, 494.7e12, 3350e9
TRUE = {"fp32": 0.7, "tf32": 0.45, "memory": 0.85, "launch": 3e-6}
DEFAULT = {"fp32": 0.6, "tf32": 0.6, "memory": 0.8, "launch": 5e-6}


def roofline(flops, bytes_, peak, e, m, launch):
    return max(flops / (peak * e), bytes_ / (BW * m)) + launch


def node(name, op, macs, flops, br, bw, t=None, status="measured", dtype="f32"):
    n = {"name": name, "op": op, "kind": "gemm", "call": "",
         "estimate": {"macs": macs, "flops": flops, "bytes_read": br, "bytes_written": bw, "dtype": dtype},
         "status": status}
    if status == "measured":
        n["time_ns"] = {"median": t * 1e9, "p10": t * 1e9, "p90": t * 1e9, "min": t * 1e9, "reps": 10}
        n["kernels_per_rep"] = 1
    else:
        n["reason"] = "no kernel" if status == "alias" else "no replay rule"
    return n


def result(path, math_, shapes, device="NVIDIA H100 80GB HBM3", f=TRUE):
    """shapes: (op, macs, flops, bytes_read, bytes_written); times from the factors f"""
    peak, e = (TF32, f["tf32"]) if math_ == "tf32" else (FP32, f["fp32"])
    nodes = []
    for i, (op, macs, flops, br, bw) in enumerate(shapes):
        pk, ef = (peak, e) if macs else (FP32, f["fp32"])  # elementwise stays on FP32 SIMT
        nodes.append(node(f"n{i}", op, macs, flops, br, bw, roofline(flops, br + bw, pk, ef, f["memory"], f["launch"])))
    nodes.append(node("view", "Reshape", 0, 0, 0, 0, status="alias"))
    nodes.append(node("attn", "Attention", 0, 0, 0, 0, status="skipped"))
    nodes.append(node("empty", "Identity", 0, 0, 0, 0, t=2e-6))  # measured, but no kernel in the model
    crop = node("padded", "AveragePool", 0, 1 << 20, 4 << 20, 1 << 20, t=1e-3)  # ran extra work: not its time
    crop["replay_overhead"] = True
    nodes.append(crop)
    doc = {"schema": "onnxcost-replay/1", "model": path.replace(".json", ".onnx"),
           "device": {"name": device, "peak_fp32_flops": 66.9e12},
           "options": {"math": math_, "reps": 10}, "nodes": nodes}
    with open(path, "w") as f:
        json.dump(doc, f)
    return nodes


def mm(m, k, n):
    return ("MatMul", m * k * n, 2 * m * k * n, 4 * (m * k + k * n), 4 * m * n)


def elt(n):
    return ("Add", 0, n, 8 * n, 4 * n)


fit_shapes = [mm(1024, 1024, 1024), mm(2048, 1024, 4096), mm(512, 4096, 1024), mm(4096, 4096, 4096),
              elt(1 << 20), elt(1 << 22), elt(1 << 24), elt(3 << 22), mm(64, 64, 64), mm(8, 1024, 1024)]
held_shapes = [mm(3072, 768, 768), mm(3072, 768, 3072), mm(3072, 3072, 768), elt(3072 * 768), elt(3072 * 3072),
               mm(1536, 2048, 2048)]
fit_nodes = result(os.path.join(tmp, "fit.json"), "fp32", fit_shapes)
held_nodes = result(os.path.join(tmp, "held.json"), "fp32", held_shapes)
tf32_nodes = result(os.path.join(tmp, "tf32.json"), "tf32", fit_shapes)


def run(*args, rc=0, err_is=None, err_has=None):
    p = subprocess.run([bin_] + list(args), capture_output=True, text=True)
    tag = " ".join(args)[:80]
    if p.returncode != rc:
        fails.append(f"{tag}: exit {p.returncode}, want {rc}: {p.stderr.strip()}")
    if err_is is not None and p.stderr.strip() != err_is:
        fails.append(f"{tag}: stderr {p.stderr.strip()!r}, want {err_is!r}")
    if err_has is not None and err_has not in p.stderr:
        fails.append(f"{tag}: stderr {p.stderr.strip()!r} lacks {err_has!r}")
    return p


def near(what, got, want, tol):
    if not (abs(got - want) <= tol * abs(want) if want else abs(got) <= tol):
        fails.append(f"{what}: {got!r}, want {want!r} within {tol}")


def quantile(v, q):  # numpy's default (linear between closest ranks)
    v = sorted(v)
    if not v:
        return 0.0
    pos = q * (len(v) - 1)
    i = int(pos)
    return v[-1] if i >= len(v) - 1 else v[i] + (v[i + 1] - v[i]) * (pos - i)


def errors(nodes, f):
    """(median, p90 of |ln p/m| over nodes >= 1 % of the time, predicted / measured - 1) for factors f"""
    pts = [n for n in nodes if n["status"] == "measured" and (n["estimate"]["flops"] or n["estimate"]["bytes_read"])
           and not n.get("replay_overhead")]
    meas = [n["time_ns"]["median"] * 1e-9 for n in pts]
    pred = []
    for n in pts:
        e = n["estimate"]
        pk, ef = (FP32, f["fp32"])
        if e["macs"] and math_of[id(nodes)] == "tf32":
            pk, ef = TF32, f["tf32"]
        pred.append(roofline(e["flops"], e["bytes_read"] + e["bytes_written"], pk, ef, f["memory"], f["launch"]))
    tot = sum(meas)
    big = [abs(math.log(p / m)) for p, m in zip(pred, meas) if m >= 0.01 * tot]
    return quantile(big, 0.5), quantile(big, 0.9), sum(pred) / tot - 1, len(pts), len(big)


math_of = {id(fit_nodes): "fp32", id(held_nodes): "fp32", id(tf32_nodes): "tf32"}

# fit on one file, check on another: the factors come back, the held-out error is ~0
spec = os.path.join(tmp, "h100.json")
p = run("calibrate", os.path.join(tmp, "fit.json"), "--check", os.path.join(tmp, "held.json"), "-o", spec,
        "--format", "json")
doc = json.loads(p.stdout or "{}")
eff = doc.get("efficiency", {})
near("fp32 factor", eff.get("fp32", 0), TRUE["fp32"], 2e-3)
near("memory factor", eff.get("memory", 0), TRUE["memory"], 2e-3)
near("launch_us", eff.get("launch_us", 0), TRUE["launch"] * 1e6, 2e-2)
if "tf32_tc" in eff:
    fails.append("a TF32 factor fitted from an FP32 run")
if doc.get("base_device") != "NVIDIA H100 SXM5 80GB":
    fails.append(f"base device {doc.get('base_device')!r}: the built-in H100 SXM by the CUDA device name")
files = {f["role"]: f for f in doc.get("files", [])}
for role, nodes in (("fit", fit_nodes), ("check", held_nodes)):
    f = files.get(role, {})
    med, p90, tot, npts, nmaj = errors(nodes, DEFAULT)
    if f.get("nodes") != npts or f.get("major_nodes") != nmaj or f.get("nodes_left_out") != 2:
        fails.append(f"{role}: nodes {f.get('nodes')}/{f.get('major_nodes')}/{f.get('nodes_left_out')}, "
                     f"want {npts}/{nmaj}/2")
    b, a = f.get("before", {}), f.get("after", {})
    near(f"{role} median before", b.get("median_abs_ln", -1), med, 1e-9)
    near(f"{role} p90 before", b.get("p90_abs_ln", -1), p90, 1e-9)
    near(f"{role} total before", b.get("total_error", -1), tot, 1e-9)
    near(f"{role} median after", a.get("median_abs_ln", 1), 0, 5e-3)
    near(f"{role} total after", a.get("total_error", 1), 0, 5e-3)
    near(f"{role} measured_s", f.get("measured_s", 0),
         sum(n["time_ns"]["median"] * 1e-9 for n in nodes if n["status"] == "measured"
             and n["estimate"]["flops"] and not n.get("replay_overhead")), 1e-12)
ops = {o["op"]: o for o in doc.get("by_op_after", [])}
if doc.get("by_op_over") != "check" or set(ops) != {"MatMul", "Add"} or ops["MatMul"]["nodes"] != 4 \
        or ops["Add"]["nodes"] != 2 or abs(ops["MatMul"]["kernels_per_node"] - 1) > 0:
    fails.append(f"by op type over the held-out file: {doc.get('by_op_over')} {ops}")

# the spec file: the H100 row's peaks, the factors, where they came from
s = json.load(open(spec))
if s.get("fp32") != 67 or s.get("tf32_tc") != 494.7 or s.get("bandwidth_gbs") != 3350 or s.get("memory_gib") != 80:
    fails.append(f"spec peaks {s}")
if s.get("efficiency") != eff or s.get("calibration", {}).get("fitted_on") != [os.path.join(tmp, "fit.json")] \
        or s["calibration"].get("checked_on") != [os.path.join(tmp, "held.json")]:
    fails.append(f"spec efficiency/provenance {s.get('efficiency')} {s.get('calibration')}")

# --gpu-spec uses them: every MNIST node's time is the roofline with the fitted factors
mnist = os.path.join(src, "fixtures", "mnist", "examples_net.onnx")
a = json.loads(run(mnist, "--gpu-spec", spec, "--format", "json").stdout or "{}")
opts = a.get("gpu", {}).get("options", {})
if opts.get("efficiency_units") != {"FP32": eff.get("fp32")} or opts.get("efficiency_memory") != eff.get("memory"):
    fails.append(f"analysis options {opts}")
checked = 0
for n in a.get("nodes", []):
    g = n.get("gpu")
    if not g or not g.get("bound"):
        continue
    c = n
    want = max(c["flops"] / (67e12 * eff["fp32"]), (c["bytes_read"] + c["bytes_written"]) / (BW * eff["memory"])) \
        + eff["launch_us"] * 1e-6
    near(f"MNIST {n['name']} time", g["time_s"], want, 1e-9)
    checked += 1
if checked < 5:
    fails.append(f"only {checked} MNIST nodes timed")
# an explicit option wins over the file, in either order
o2 = json.loads(run(mnist, "--efficiency", "0.5", "--gpu-spec", spec, "--format", "json").stdout or "{}")["gpu"]["options"]
if "efficiency_units" in o2 or o2["efficiency_compute"] != 0.5 or o2["efficiency_memory"] != eff["memory"]:
    fails.append(f"--efficiency before --gpu-spec: {o2}")
o3 = json.loads(run(mnist, "--gpu-spec", spec, "--mem-efficiency", "0.4", "--launch-us", "1", "--format",
                    "json").stdout or "{}")["gpu"]["options"]
if o3["efficiency_memory"] != 0.4 or o3["launch_s"] != 1e-6 or o3.get("efficiency_units") != {"FP32": eff["fp32"]}:
    fails.append(f"--mem-efficiency/--launch-us after --gpu-spec: {o3}")
o4 = json.loads(run(mnist, "--gpu-spec", spec, "--gpu", "h100", "--format", "json").stdout or "{}")["gpu"]["options"]
if "efficiency_units" in o4 or o4["efficiency_memory"] != 0.8 or o4["launch_s"] != 5e-6:
    fails.append(f"--gpu after a calibrated --gpu-spec keeps its factors: {o4}")
txt = run(mnist, "--gpu-spec", spec).stdout
if f"efficiency compute (calibrated: FP32 {eff['fp32']:.2f}; other units) 0.60, memory {eff['memory']:.2f}" not in txt:
    fails.append("the text report does not name the calibrated factors:\n" + txt[:600])

# TF32: the contractions' factor is TF32-TC's, the elementwise nodes' FP32's
d2 = json.loads(run("calibrate", os.path.join(tmp, "tf32.json"), "--format", "json").stdout or "{}")
near("tf32 factor", d2.get("efficiency", {}).get("tf32_tc", 0), TRUE["tf32"], 2e-3)
if "fp32" in d2.get("efficiency", {}):  # FP32 nodes here are elementwise, all memory-bound
    fails.append(f"an FP32 compute factor from memory-bound nodes only: {d2.get('efficiency')}")

# the text report
t = run("calibrate", os.path.join(tmp, "fit.json"), "--check", os.path.join(tmp, "held.json")).stdout
for want in ("Calibration of the performance model (docs/MODEL.md) on NVIDIA H100 80GB HBM3",
             "base device: NVIDIA H100 SXM5 80GB (built-in); before: efficiency compute 0.60, memory 0.80, launch 5.00 us",
             f"fitted on {len(fit_shapes)} nodes: FP32 0.70", "Median |ln p/m| before", " check "):
    if want not in t:
        fails.append(f"text report lacks {want!r}:\n{t}")

# a factor beyond the search's range (memory 30 times the datasheet) is left at
# the end of the range and said to be
fast = os.path.join(tmp, "fast.json")
result(fast, "fp32", fit_shapes, f=dict(TRUE, memory=30))
d3 = json.loads(run("calibrate", fast, "--format", "json").stdout or "{}")
if d3.get("at_range_end") != ["memory"] or d3.get("efficiency", {}).get("memory") != 10:
    fails.append(f"memory beyond the range: {d3.get('efficiency')} {d3.get('at_range_end')}")
if "memory 10.000 (at the end of its range)" not in run("calibrate", fast).stdout:
    fails.append("the text report does not say the memory factor is at the end of its range")
if d3.get("at_range_end") is None or doc.get("at_range_end") != []:
    fails.append(f"a factor inside its range marked at its end: {doc.get('at_range_end')}")

# refusals: one line, exit 2
fit = os.path.join(tmp, "fit.json")
run("calibrate", rc=2, err_is="onnxcost: error: calibrate: no result files given (try 'onnxcost calibrate --help')")
run("calibrate", fit, "--math", "fp32", rc=2,
    err_is="onnxcost: error: calibrate: --math comes from each result file (its replay --math)")
run("calibrate", fit, "--format", "csv", rc=2,
    err_is="onnxcost: error: calibrate: --format takes text, md or json, got 'csv'")
run("calibrate", os.path.join(tmp, "nope.json"), rc=2,
    err_is=f"onnxcost: error: {tmp}/nope.json: cannot read: No such file or directory")
run("calibrate", mnist, rc=2, err_has=f"onnxcost: error: {mnist}: not JSON")
odd = os.path.join(tmp, "odd.json")
result(odd, "fp32", fit_shapes, device="Some Accelerator 9000")
run("calibrate", odd, rc=2, err_is=f"onnxcost: error: {odd}: no built-in GPU is named 'Some Accelerator 9000': "
    "give the peaks with --gpu NAME, --gpu-spec FILE or, for a CPU, --machine FILE from onnxcost probe")
p = run("calibrate", odd, "--gpu", "h100", "--check", fit,
        err_is=f"onnxcost: warning: {fit}: measured on 'NVIDIA H100 80GB HBM3', the first file on "
        "'Some Accelerator 9000': one calibration is for one device")
empty = os.path.join(tmp, "empty.json")
with open(empty, "w") as f:
    json.dump({"schema": "onnxcost-replay/1", "model": "m", "device": {"name": "NVIDIA H200"}, "nodes": []}, f)
run("calibrate", empty, rc=2, err_is=f"onnxcost: warning: {empty}: no measured node with a kernel in the model: "
    f"nothing to compare\nonnxcost: error: {empty}: no measured node to fit on: the records kept hold no node with "
    "a kernel and a measured time (replays without counters, or on no GPU?)")
run("calibrate", fit, "-o", os.path.join(tmp, "no", "such", "dir.json"), rc=3)

# bad records: one line naming the file, the node and the field, exit 2, and
# no spec written; nothing is dropped silently (each case broke node n0 of a
# good file, which calibrate used to fit on with a dropped or absurd point)
def doctored(tag, change):
    with open(fit) as f:
        doc = json.load(f)
    change(doc, doc["nodes"][0])
    path = os.path.join(tmp, f"bad_{tag}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def set_time(v):
    def f(doc, n):
        n["time_ns"]["median"] = v
    return f


def set_est(key, v):
    def f(doc, n):
        n["estimate"][key] = v
    return f


def drop_time(doc, n):
    del n["time_ns"]


def set_key(key, v):
    def f(doc, n):
        n[key] = v
    return f


def set_math(doc, n):
    doc["options"]["math"] = "int4"


N0 = "node 0 'n0' (MatMul)"
bad_records = [
    ("neg_time", set_time(-5.0), f"{N0}: time_ns.median is not a time from 1e-3 to 1e15 ns (a measured node took some time)"),
    ("zero_time", set_time(0), f"{N0}: time_ns.median is not a time from 1e-3 to 1e15 ns (a measured node took some time)"),
    # a subnormal time: inf TFLOP/s in tables, NaN errors in calibrate (both had exited 0)
    ("tiny_time", set_time(1e-320), f"{N0}: time_ns.median is not a time from 1e-3 to 1e15 ns (a measured node took some time)"),
    ("str_time", set_time("fast"), f"{N0}: time_ns.median is not a number"),
    ("no_time", drop_time, f"{N0}: time_ns.median is missing"),
    ("neg_flops", set_est("flops", -1), f"{N0}: estimate.flops is not a count from 0 to 2^63-1"),
    ("huge_flops", set_est("flops", 1e300), f"{N0}: estimate.flops is not a count from 0 to 2^63-1"),
    ("neg_bytes", set_est("bytes_read", -4096), f"{N0}: estimate.bytes_read is not a count from 0 to 2^63-1"),
    ("bad_dtype", set_est("dtype", "f33"), f"{N0}: estimate.dtype is not a dtype name (f32, f16, bf16, ...)"),
    ("neg_kernels", set_key("kernels_per_rep", -3), f"{N0}: kernels_per_rep is not a whole number from 0 to 2^31-1"),
    ("bad_status", set_key("status", "timed"), f"{N0}: status is not measured, alias, skipped or failed"),
    ("no_estimate", set_key("estimate", None), f"{N0}: estimate is missing"),
]
for tag, change, msg in bad_records:
    path = doctored(tag, change)
    spec = os.path.join(tmp, f"spec_{tag}.json")
    run("calibrate", path, "-o", spec, rc=2, err_is=f"onnxcost: error: {path}: {msg}")
    run("calibrate", fit, "--check", path, rc=2, err_is=f"onnxcost: error: {path}: {msg}")
    if os.path.exists(spec):
        fails.append(f"{tag}: a spec was written from a bad record")
path = doctored("math", set_math)
run("calibrate", path, rc=2, err_is=f"onnxcost: error: {path}: options.math is not \"fp32\", \"tf32\" or \"fp16\"")

# ONNX Runtime measurements (onnxcost measure --format json) on a CPU given by
# --machine: times made by the roofline with the bandwidth of the smallest
# cache level holding each node's bytes, with known factors; the fit must find
# them again, the device comes from the run's record, and the spec written
# keeps the machine's kind and caches
CPU = {"name": "hand CPU, 4 threads", "kind": "cpu", "fp32": 0.5, "memory_gib": 16, "bandwidth_gbs": 20,
       "caches": [{"kib": 256, "bandwidth_gbs": 800}, {"kib": 8192, "bandwidth_gbs": 200}]}
CPU_TRUE = {"fp32": 0.55, "memory": 0.7, "caches": [0.2, 0.45], "launch": 4e-6}


def cpu_time(flops, moved, f):
    """the roofline with the bandwidth and memory factor of the level holding the bytes"""
    lv = next((k for k, c in enumerate(CPU["caches"]) if moved <= c["kib"] * 1024), None)
    bw = (CPU["caches"][lv]["bandwidth_gbs"] if lv is not None else CPU["bandwidth_gbs"]) * 1e9
    em = f["caches"][lv] if lv is not None else f["memory"]
    return max(flops / (CPU["fp32"] * 1e12 * f["fp32"]), moved / (bw * em)) + f["launch"]


def measured_doc(path, shapes, slow=1.0, bindings=None, offset=True):
    """a measure result of the hand CPU's nodes; slow: another process's load, every time that many times;
    bindings: the dims it ran at; offset False: written before the profile's whole microseconds were taken at their
    middle (no duration_offset_us): read with the half microsecond added to every time"""
    nodes = []
    for i, (op, macs, flops, br, bw) in enumerate(shapes):
        t = cpu_time(flops, br + bw, CPU_TRUE) * slow
        nodes.append({"name": f"n{i}", "op_type": op, "status": "ok", "macs": macs, "flops": flops,
                      "bytes_read": br, "bytes_written": bw, "outputs": [{"name": f"y{i}", "dtype": "f32"}],
                      "measured": {"median_us": t * 1e6, "p10_us": t * 1e6, "p90_us": t * 1e6, "runs": 20}})
    nodes.append({"name": "view", "op_type": "Reshape", "status": "ok", "macs": 0, "flops": 0, "bytes_read": 0,
                  "bytes_written": 0, "outputs": [], "measured": None})
    nodes.append({"name": "odd", "op_type": "Custom", "status": "no_rule", "measured": {"median_us": 7.0}})
    doc = {"schema": "onnxcost/1", "model": {"path": "m.ort.onnx"}, "nodes": nodes,
           "measured": {"providers": "CPUExecutionProvider", "runs": 20, "duration_offset_us": 0.5,
                        "end_to_end_ms": {"median": sum(n["measured"]["median_us"] for n in nodes[:-2]) * 1.1e-3},
                        "sum_of_node_medians_ms": sum(n["measured"]["median_us"] for n in nodes[:-2]) * 1e-3,
                        "run": {"runtime": "onnxruntime", "version": "1.31.1", "intra_op_threads": 4, "cpu": "hand CPU",
                                "cpu_count": 8, "model": "m.onnx"}}}
    if bindings is not None:
        doc["bindings"] = bindings
    if not offset:
        del doc["measured"]["duration_offset_us"]
    with open(path, "w") as f:
        json.dump(doc, f)


cpu_shapes = [mm(256, 256, 256), mm(512, 1024, 1024), mm(1024, 1024, 1024), mm(64, 512, 512), elt(1 << 12),
              elt(1 << 13), elt(3 << 12), elt(1 << 18), elt(1 << 17), elt(5 << 16), elt(1 << 22), elt(1 << 23),
              mm(2048, 512, 512), elt(3 << 20)]
machine = os.path.join(tmp, "cpu_machine.json")
json.dump(CPU, open(machine, "w"))
mfit, mspec = os.path.join(tmp, "cpu_fit.json"), os.path.join(tmp, "cpu_spec.json")
measured_doc(mfit, cpu_shapes)
p = run("calibrate", mfit, "--machine", machine, "-o", mspec)
cs = json.load(open(mspec)) if os.path.exists(mspec) else {}
ce = cs.get("efficiency", {})
near("CPU fp32 factor", ce.get("fp32", 0), CPU_TRUE["fp32"], 0.02)
near("CPU memory factor", ce.get("memory", 0), CPU_TRUE["memory"], 0.02)
got_levels = ce.get("memory_caches", [0, 0])
near("CPU memory factor in the first cache level", got_levels[0], CPU_TRUE["caches"][0], 0.02)
near("CPU memory factor in the second cache level", got_levels[1] if len(got_levels) > 1 else 0,
     CPU_TRUE["caches"][1], 0.02)
near("CPU per-node time (us)", ce.get("launch_us", 0), CPU_TRUE["launch"] * 1e6, 0.05)
# the same result written before duration_offset_us: every node's time read 0.5 us later, so the fixed cost
mold, mspec_old = os.path.join(tmp, "cpu_fit_old.json"), os.path.join(tmp, "cpu_spec_old.json")
measured_doc(mold, cpu_shapes, offset=False)
run("calibrate", mold, "--machine", machine, "-o", mspec_old)
ce_old = json.load(open(mspec_old)).get("efficiency", {}) if os.path.exists(mspec_old) else {}
near("CPU per-node time (us), a result written before the half microsecond", ce_old.get("launch_us", 0),
     CPU_TRUE["launch"] * 1e6 + 0.5, 0.05)
if cs.get("kind") != "cpu" or [c["kib"] for c in cs.get("caches", [])] != [256, 8192]:
    fails.append(f"the CPU spec lost its kind or caches: {cs.get('kind')}, {cs.get('caches')}")
if "on hand CPU, 4 threads" not in p.stdout:
    fails.append("the device of a measured file is the run's CPU and threads")
# a CPU kernel's runs (oc_kernel_runs): calibrate analyzes the graph a result names again and takes each
# node's runs from its shapes. Broadcast Adds [R, S] + [S] (ONNX Runtime's loop takes R spans of S; S = 1 too)
# of 2^12 to 2^20 elements, timed here as the roofline plus 8 ns per span after the first; the fit finds
# the 8 ns, also from the model it ran from where the runtime's graph is gone (measure without --save);
# with neither there: one warning line, and no run cost fitted. Beside them nine Shapes, which the
# analysis folds (no kernel of the model's work: 16 bytes written, by ONNX Runtime's accounting),
# timed 2, 2.5 and 3 us three times over: not roofline points, the time of a node without a kernel
# fitted on them alone (the record ran at 4 threads, with no pool cost fitted: one thread count),
# their geometric mean (2 x 2.5 x 3)^(1/3) = 2.466 us, each weighing the same; a prediction's Shape
# takes it. With only the first three, fewer than 8: not fitted.
try:
    from onnx import TensorProto, helper as oh, save as onnx_save
except ImportError as e:
    fails.append(f"the oracle Python has onnx (.ci/install-deps): {e}")
else:
    adds, ins, outs = [], [], []
    for e in (1 << 12, 1 << 16, 1 << 20):
        for span in (1, 4, 64, e):
            k = len(adds)
            ins += [oh.make_tensor_value_info(f"x{k}", TensorProto.FLOAT, [e // span, span]),
                    oh.make_tensor_value_info(f"b{k}", TensorProto.FLOAT, [span])]
            outs.append(oh.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, [e // span, span]))
            adds.append((oh.make_node("Add", [f"x{k}", f"b{k}"], [f"y{k}"], name=f"add{k}"), e, span))
    shapes_ = [oh.make_node("Shape", [f"x{k}"], [f"s{k}"], name=f"shape{k}") for k in range(9)]
    outs += [oh.make_tensor_value_info(f"s{k}", TensorProto.INT64, [2]) for k in range(9)]
    graph = oh.make_graph([a[0] for a in adds] + shapes_, "spans", ins, outs)
    spans_model = os.path.join(tmp, "spans.onnx")
    onnx_save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)]), spans_model)
    doc = {"schema": "onnxcost/1", "model": {"path": spans_model}, "nodes": [],
           "measured": {"providers": "CPUExecutionProvider", "runs": 20, "duration_offset_us": 0.5,
                        "run": {"runtime": "onnxruntime", "version": "1.31.1", "intra_op_threads": 4,
                                "cpu": "hand CPU", "cpu_count": 8, "model": spans_model}}}
    for node_, e, span in adds:
        br, bw = 4 * (e + span), 4 * e
        t = cpu_time(0, br + bw, CPU_TRUE) + (e // span - 1) * 8e-9
        doc["nodes"].append({"name": node_.name, "op_type": "Add", "status": "ok", "macs": 0, "flops": e,
                             "bytes_read": br, "bytes_written": bw,
                             "outputs": [{"name": node_.output[0], "dtype": "f32"}],
                             "measured": {"median_us": t * 1e6, "p10_us": t * 1e6, "p90_us": t * 1e6, "runs": 20}})
    for k, us in enumerate((2.0, 2.5, 3.0) * 3):
        doc["nodes"].append({"name": f"shape{k}", "op_type": "Shape", "status": "ok", "macs": 0, "flops": 0,
                             "bytes_read": 0, "bytes_written": 16, "outputs": [{"name": f"s{k}", "dtype": "i64"}],
                             "measured": {"median_us": us, "p10_us": us, "p90_us": us, "runs": 20}})
    total = sum(n["measured"]["median_us"] for n in doc["nodes"])
    doc["measured"].update({"end_to_end_ms": {"median": total * 1.1e-3}, "sum_of_node_medians_ms": total * 1e-3})
    rfit, rspec = os.path.join(tmp, "spans_fit.json"), os.path.join(tmp, "spans_spec.json")
    json.dump(doc, open(rfit, "w"))
    q = run("calibrate", rfit, "--machine", machine, "-o", rspec)
    re_ = json.load(open(rspec)).get("efficiency", {}) if os.path.exists(rspec) else {}
    near("a CPU kernel's cost per run after its first (us)", re_.get("run_us", 0), 0.008, 0.05)
    if "per run of a kernel's inner loop" not in q.stdout:
        fails.append("the text names the fitted cost per run")
    light_us = (2.0 * 2.5 * 3.0) ** (1 / 3)
    near("a CPU node without a kernel (us)", re_.get("light_us", 0), light_us, 0.005)
    if "a node without a kernel" not in q.stdout or "fitted on 12 nodes" not in q.stdout:
        fails.append("the text names the fitted time of a node without a kernel, and 12 roofline points (no Shape)")
    q = run(spans_model, "--gpu-spec", rspec, "--format", "json", "-q")
    sh_t = [n["gpu"]["time_s"] for n in json.loads(q.stdout)["nodes"] if n["op_type"] == "Shape"] \
        if q.returncode == 0 else []
    if len(sh_t) != 9 or any(abs(t * 1e6 - re_.get("light_us", 0)) > 1e-9 for t in sh_t):
        fails.append(f"a prediction's Shapes take the spec's light_us {re_.get('light_us')}: {sh_t}")
    few = json.loads(json.dumps(doc))
    few["nodes"] = [n_ for n_ in few["nodes"] if n_["op_type"] != "Shape" or n_["name"] in ("shape0", "shape1", "shape2")]
    ffit = os.path.join(tmp, "spans_few.json")
    json.dump(few, open(ffit, "w"))
    q = run("calibrate", ffit, "--machine", machine, "-o", rspec)
    re_ = json.load(open(rspec)).get("efficiency", {}) if os.path.exists(rspec) else {}
    if q.returncode != 0 or "light_us" in re_:
        fails.append(f"three nodes without a kernel: no light_us fitted ({re_.get('light_us')}, {q.stderr.strip()[:200]})")
    doc["model"]["path"] = os.path.join(tmp, "gone", "spans.ort.onnx")  # measure without --save: its graph is gone
    json.dump(doc, open(rfit, "w"))
    q = run("calibrate", rfit, "--machine", machine, "-o", rspec)
    warn = [ln for ln in q.stderr.splitlines() if "taken from its model" in ln]
    re_ = json.load(open(rspec)).get("efficiency", {}) if os.path.exists(rspec) else {}
    near("the cost per run from the model the runtime ran from, its graph gone", re_.get("run_us", 0), 0.008, 0.05)
    if len(warn) != 1:
        fails.append(f"a result whose graph is gone: one warning line naming its model ({q.stderr.strip()[:300]})")
    os.rename(spans_model, spans_model + ".moved")
    q = run("calibrate", rfit, "--machine", machine, "-o", rspec)
    warn = [ln for ln in q.stderr.splitlines() if "not there" in ln]
    re_ = json.load(open(rspec)).get("efficiency", {}) if os.path.exists(rspec) else {}
    if len(warn) != 1 or "run_us" in re_:
        fails.append(f"a result whose graph moved: one warning line, no run cost fitted ({warn}, {re_.get('run_us')})")

# an op's own factor in a CPU spec (efficiency.ops): MNIST's ReLUs (a 256 KiB first level holds
# each) take the first level's bandwidth x its factor x the op's; the others none. An option that
# sets the factors it depends on drops it, whichever comes first.
ospec = os.path.join(tmp, "cpu_spec_ops.json")
cs2 = json.loads(json.dumps(cs))
cs2.setdefault("efficiency", {})["ops"] = {"Relu": 0.1}
json.dump(cs2, open(ospec, "w"))
mnist_ops = os.path.abspath(os.path.join(src, "fixtures", "mnist", "torchsummary_net.onnx"))


def relus(*opts):
    q = run(mnist_ops, *opts, "--format", "json", "-q")
    d = json.loads(q.stdout) if q.returncode == 0 else {"nodes": []}
    return [n for n in d["nodes"] if n["op_type"] == "Relu" and n.get("gpu")], d


rl, d_ops = relus("--gpu-spec", ospec)
lvl = cs2["efficiency"]["memory_caches"][0]
for n in rl:
    moved = n["bytes_read"] + n["bytes_written"]
    near(f"Relu {n['name']} memory time with its op's factor", n["gpu"]["memory_s"],
         moved / (CPU["caches"][0]["bandwidth_gbs"] * 1e9 * lvl * 0.1), 1e-9)
    if n["gpu"].get("op_efficiency") != 0.1:
        fails.append(f"Relu {n['name']}: op_efficiency {n['gpu'].get('op_efficiency')}, want 0.1")
if not rl or any(n.get("gpu", {}).get("op_efficiency") for n in d_ops["nodes"] if n["op_type"] != "Relu"):
    fails.append(f"the op factor: {len(rl)} Relu nodes; only they take it")
for opt in (["--mem-efficiency", "0.5"], ["--efficiency", "0.5"]):
    a, da = relus("--gpu-spec", ospec, *opt)
    b, db = relus(*opt, "--gpu-spec", ospec)
    la, lb = (x.get("gpu", {}).get("latency_s") for x in (da, db))
    if any(n["gpu"].get("op_efficiency") for n in a + b) or not a or not la or la != lb:
        fails.append(f"{opt[0]} before or after --gpu-spec: the same prediction, without the op's factor")

# two sessions of one run, the second under another process's load (every node 1.6x): the fit
# takes the faster one alone and finds the true factors again; the slower is named, role "slower"
mslow, mspec2, mrep2 = (os.path.join(tmp, x) for x in ("cpu_fit_slow.json", "cpu_spec2.json", "cpu_rep2.json"))
measured_doc(mslow, cpu_shapes, slow=1.6)
p = run("calibrate", mslow, mfit, "--machine", machine, "-o", mspec2, "--report", mrep2, "--format", "json")
ce2 = json.load(open(mspec2)).get("efficiency", {}) if os.path.exists(mspec2) else {}
near("CPU fp32 factor, a slower session beside", ce2.get("fp32", 0), CPU_TRUE["fp32"], 0.02)
near("CPU memory factor, a slower session beside", ce2.get("memory", 0), CPU_TRUE["memory"], 0.02)
roles = {os.path.basename(f["path"]): f["role"] for f in json.load(open(mrep2))["files"]} if os.path.exists(mrep2) else {}
if roles != {"cpu_fit_slow.json": "slower", "cpu_fit.json": "fit"}:
    fails.append(f"sessions of one run: roles {roles}")
if "cpu_fit_slow.json" not in p.stderr or "1.60x faster" not in p.stderr:
    fails.append(f"the slower session is named with the ratio: {p.stderr.strip()}")
p = run("calibrate", mslow, mfit, "--machine", machine, "-o", mspec2, "--keep-noisy")
both = json.load(open(mspec2))["efficiency"].get("fp32", 0) if os.path.exists(mspec2) else 0
if not CPU_TRUE["fp32"] / 1.6 * 0.98 < both < CPU_TRUE["fp32"] * 0.95:
    fails.append(f"--keep-noisy fits both sessions: fp32 {both}, want between the two sessions' factors")
# the same model at other bound dims (1.6x the time at batch 8 against batch 1) is another run, not a session:
# both are fitted, neither is "slower"
mb1, mb8, mrep3 = (os.path.join(tmp, x) for x in ("cpu_fit_b1.json", "cpu_fit_b8.json", "cpu_rep3.json"))
measured_doc(mb1, cpu_shapes, bindings={"batch": 1})
measured_doc(mb8, cpu_shapes, slow=1.6, bindings={"batch": 8})
p = run("calibrate", mb1, mb8, "--machine", machine, "-o", mspec2, "--report", mrep3, "--format", "json")
roles = {os.path.basename(f["path"]): f["role"] for f in json.load(open(mrep3))["files"]} if os.path.exists(mrep3) else {}
if roles != {"cpu_fit_b1.json": "fit", "cpu_fit_b8.json": "fit"} or "slower" in p.stderr:
    fails.append(f"one model at two batches: roles {roles}, {p.stderr.strip()}")

# on a CPU every node the runtime runs takes a gap, and one without a kernel (MNIST's Reshape) the fixed
# cost per node; a Constant neither: the latency is the nodes' times plus (kernels + such nodes) x gap
q = run(mnist_ops, "--gpu-spec", mspec, "--format", "json", "-q")
dm = json.loads(q.stdout) if q.returncode == 0 else {"nodes": [], "gpu": {}}
ms_eff = json.load(open(mspec))["efficiency"] if os.path.exists(mspec) else {}
light = [n for n in dm["nodes"] if n.get("gpu") and n["gpu"]["bound"] is None and n["op_type"] != "Constant"]
kern = [n for n in dm["nodes"] if n.get("gpu") and n["gpu"]["bound"] is not None]
if [n["op_type"] for n in light] != ["Reshape"] or any(n["gpu"]["time_s"] for n in dm["nodes"] if n["op_type"] == "Constant"):
    fails.append(f"nodes without a kernel on a CPU: {[n['op_type'] for n in light]}; a Constant takes nothing")
for n in light:
    near(f"{n['name']} (no kernel) time", n["gpu"]["time_s"], ms_eff.get("launch_us", 0) * 1e-6, 1e-9)
near("MNIST's gaps on the hand CPU", dm["gpu"].get("gaps_s", 0), (len(kern) + len(light)) * ms_eff.get("gap_us", 0) * 1e-6,
     1e-6)
near("MNIST's latency on the hand CPU", dm["gpu"].get("latency_s", 0),
     sum(n["gpu"]["time_s"] for n in dm["nodes"] if n.get("gpu")) + dm["gpu"].get("gaps_s", 0), 1e-9)
if dm["gpu"].get("nodes_run_without_kernel") != len(light):
    fails.append(f"nodes_run_without_kernel {dm['gpu'].get('nodes_run_without_kernel')}, want {len(light)}")

p = run("calibrate", mfit, rc=2)
if "--machine FILE" not in p.stderr or p.returncode != 2:
    fails.append(f"a measured file without --machine: {p.returncode} {p.stderr.strip()}")
nm = os.path.join(tmp, "not_measured.json")
json.dump({"schema": "onnxcost/1", "nodes": []}, open(nm, "w"))
run("calibrate", nm, "--machine", machine, rc=2, err_has="an analysis without measured times")

# end-to-end measurements (--end-to-end TABLE.csv): rows of the MNIST net at
# several batches on the built-in H100 SXM and L4 (FP32 67 and 30.3 TFLOP/s,
# 3,350 and 300 GB/s: ridges 20 and 101 FLOP/B, so that compute and memory
# factors part) in strict FP32, each row's time made here from the nodes'
# FLOPs and bytes with known factors: per kernel max(FLOPs / (peak e),
# bytes / (bandwidth m)) + launch, the model at least kernels x host
# (constants fold: no kernel); the fit must find the factors again and
# predict the rows it did not see
E2E_TRUE = {"fp32": 0.45, "memory": 0.6, "launch": 4e-6, "host": 30e-6}
mnist = os.path.abspath(os.path.join(src, "fixtures", "mnist", "torchsummary_net.onnx"))


E2E_DEV = {"h100-sxm": (FP32, BW), "l4": (30.3e12, 300e9)}


def e2e_time(batch, f, dev="h100-sxm"):
    peak, bw = E2E_DEV[dev]
    p = subprocess.run([bin_, mnist, "--batch", str(batch), "--format", "json"], capture_output=True, text=True)
    total, kernels = 0.0, 0
    for n in json.loads(p.stdout)["nodes"]:
        moved = n["bytes_read"] + n["bytes_written"]
        if n["op_type"] == "Constant" or (n["flops"] == 0 and moved == 0):
            continue
        kernels += 1
        total += max(n["flops"] / (peak * f["fp32"]), moved / (bw * f["memory"])) + f["launch"]
    return max(total, kernels * f["host"])


e2e_rows = [(1, "h100-sxm", "fit"), (256, "h100-sxm", "fit"), (65536, "h100-sxm", "fit"), (16, "l4", "fit"),
            (4096, "l4", "fit"), (65536, "l4", "fit"), (4, "h100-sxm", "check"), (1024, "l4", "check"),
            (16384, "h100-sxm", "check")]
table = os.path.join(tmp, "e2e.csv")
with open(table, "w") as f:
    f.write("# made by calibrate_check.py\nmodel,bindings,device,precision,mode,measured,unit,role,source\n")
    for b, dev, role in e2e_rows:
        f.write(f"{mnist},batch={b},{dev},fp32,inference,{e2e_time(b, E2E_TRUE, dev) * 1e3!r},ms,{role},\"hand\"\n")
p = run("calibrate", "--end-to-end", table, "--format", "json")
doc = json.loads(p.stdout) if p.returncode == 0 else {"efficiency": {}, "rows": []}
ee = doc["efficiency"]
near("end-to-end FP32 factor", ee.get("fp32", 0), E2E_TRUE["fp32"], 0.03)
near("end-to-end memory factor", ee.get("memory", 0), E2E_TRUE["memory"], 0.03)
near("end-to-end launch (us)", ee.get("launch_us", 0), E2E_TRUE["launch"] * 1e6, 0.05)
near("end-to-end host time (us)", ee.get("host_us", 0), E2E_TRUE["host"] * 1e6, 0.05)
for r in doc["rows"]:
    if r["role"] == "check" and abs(r["error_after"]) > 0.02:
        fails.append(f"end-to-end check row batch {r['batch']}: {100 * r['error_after']:+.1f} % after the fit")
    want_before = e2e_time(r["batch"], {"fp32": 0.6, "memory": 0.8, "launch": 5e-6, "host": 0}, r["device"])
    near(f"end-to-end row batch {r['batch']} before the fit (s)", r["before_s"], want_before, 1e-6)
if len(doc["rows"]) != len(e2e_rows):
    fails.append(f"end-to-end: {len(doc['rows'])} rows reported, {len(e2e_rows)} in the table")
bad_tables = {
    "no_header": ("resnet.onnx,batch=1,h100-sxm,fp32,inference,5,ms,fit,x\n", "line 1: the header must be"),
    "device": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,nosuch,fp32,"
               "inference,5,ms,fit,x\n", "line 2: device 'nosuch' is no built-in GPU"),
    "precision": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp8,"
                  "inference,5,ms,fit,x\n", "line 2: precision 'fp8' is not"),
    "measured": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp32,"
                 "inference,fast,ms,fit,x\n", "line 2: measured is not a decimal number > 0"),
    # issue 42, D: what was read as something else
    "hex": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp32,"
            "inference,0x10,ms,fit,x\n", "line 2: measured is not a decimal number > 0"),
    "open_quote": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp32,"
                   "inference,5,ms,fit,\"hand\n", "line 2: a quoted field is not closed"),
    "misspelled_dim": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},bacth=64,h100-sxm,"
                       "fp32,inference,5,ms,fit,x\n", "name a dim no input of the model has"),
    "empty_bindings": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},-,h100-sxm,"
                       "fp32,inference,5,ms,fit,x\n", "leave a dim of the model unbound"),
    "mode": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp32,"
             "serving,5,ms,fit,x\n", "line 2: mode 'serving' is not"),
    "no_fit": (f"model,bindings,device,precision,mode,measured,unit,role,source\n{mnist},batch=1,h100-sxm,fp32,"
               "inference,5,ms,check,x\n", "no row has role fit"),
}
# a UTF-8 byte order mark before the header is read past; a table with no
# check row says it has none (not "checked rows 0.0 %")
bom = os.path.join(tmp, "e2e_bom.csv")
with open(bom, "w", encoding="utf-8-sig") as f:
    f.write("model,bindings,device,precision,mode,measured,unit,role,source\n")
    for b, dev, role in e2e_rows[:6]:
        f.write(f"{mnist},batch={b},{dev},fp32,inference,{e2e_time(b, E2E_TRUE, dev) * 1e3!r},ms,{role},x\n")
p = run("calibrate", "--end-to-end", bom)
if "NO CHECK ROWS" not in p.stdout or "checked rows 0.0" in p.stdout:
    fails.append(f"end-to-end with a BOM and no check rows: exit {p.returncode}: {p.stdout[-300:]} {p.stderr[-200:]}")
for tag, (text, msg) in bad_tables.items():
    path = os.path.join(tmp, f"e2e_bad_{tag}.csv")
    open(path, "w").write(text)
    p = run("calibrate", "--end-to-end", path, rc=2, err_has=msg)
    if len(p.stderr.strip().splitlines()) != 1:
        fails.append(f"end-to-end bad table {tag}: not one line: {p.stderr.strip()!r}")

if fails:
    print("\n".join("FAIL " + f for f in fails))
    sys.exit(1)
print("cli.calibrate: ok")
