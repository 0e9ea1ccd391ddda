#!/usr/bin/env python3
"""`onnxcost probe` and the CPU time model of --machine, checked without timing.

The probe's figures are rates of this machine and are never asserted; what
is checked is what can be known independently:
  * the spec file's structure: kind "cpu", positive peaks and bandwidths,
    caches smallest first; the ISA, the BF16/INT8 paths and the cache
    levels, sizes and sharing equal /proc/cpuinfo's flags and
    /sys/devices/system/cpu/cpu0/cache; the threads and logical CPUs; what
    the threads reach together (a private level once per thread, a shared
    one once per group sharing it);
  * the file reads back with --machine, and --cpu probes on the fly;
  * the model: with a hand-written machine file, every node's predicted
    time is recomputed here from its FLOPs and bytes (docs/MODEL.md): the
    bandwidth of the smallest cache level holding the bytes the node moves,
    else DRAM's, then max(compute, memory) + the per-node overhead;
  * the runs sweep (probe --sweep-model): ONNX Runtime runs it, and each
    node's runs of its kernel's inner loop are worked out from its shapes;
  * bad usage and a bad caches key: one line, exit 2.

usage: probe_check.py ONNXCOST MNIST.onnx WORKDIR
"""
import json
import os
import subprocess
import sys

onnxcost, model, workdir = sys.argv[1:4]
os.makedirs(workdir, exist_ok=True)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([onnxcost] + list(args), capture_output=True, text=True)


def sysfs_caches():
    out, base = {}, "/sys/devices/system/cpu/cpu0/cache"
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if not d.startswith("index"):
            continue
        rd = lambda f: open(os.path.join(base, d, f)).read().strip()
        if rd("type") == "Instruction":
            continue
        size = rd("size")
        kib = int(size[:-1]) * (1024 if size.endswith("M") else 1) if size[-1] in "KM" else int(size) // 1024
        shared = 0
        for part in rd("shared_cpu_list").split(","):
            a, _, b = part.partition("-")
            shared += int(b or a) - int(a) + 1
        out[int(rd("level"))] = (kib, shared)
    return out


flags = set()
for line in open("/proc/cpuinfo"):
    if line.startswith("flags") or line.startswith("Features"):
        flags |= set(line.split(":", 1)[1].split())

p = run("probe", "--format", "json", "--seconds", "0.005")
doc = json.loads(p.stdout) if p.returncode == 0 else {}
check(p.returncode == 0 and doc.get("kind") == "cpu", f"probe --format json: exit {p.returncode} {p.stderr[:200]}")
pr = doc.get("probe", {})
isa = "avx512f" if "avx512f" in flags else "avx2+fma" if {"avx2", "fma"} <= flags else \
    "neon" if "asimd" in flags else "scalar"
check(pr.get("isa") == isa, f"ISA {pr.get('isa')} as /proc/cpuinfo says ({isa})")
check(("bf16_tc" in doc) == (isa == "avx512f" and "avx512_bf16" in flags) and
      ("int8_tc" in doc) == (isa == "avx512f" and "avx512_vnni" in flags),
      f"BF16 and INT8 paths as the flags say ({'bf16_tc' in doc}, {'int8_tc' in doc})")
# the clock: no CPU runs past 6.5 GHz, nor past 2.5x what /proc/cpuinfo says it runs at now (a chain
# of immediate adds, folded at rename on recent x86 cores, had read 11.5 GHz on a 2.1 GHz Xeon); only an
# upper bound: a busy core reads lower
mhz = [float(line.split(":", 1)[1]) for line in open("/proc/cpuinfo") if line.startswith("cpu MHz")]
ghz, read = pr.get("clock_ghz"), pr.get("clock_read_ghz", 0)
# a reading that leaves one thread's FP32 rate under 0.6 x 2 x lanes FLOP a cycle (a core has at least one
# FMA unit of its ISA's width) is left out (clock_ghz null), said so, what was read kept
lanes = {"avx512f": 16, "avx2+fma": 8, "neon": 4}.get(isa, 1)
fp32 = pr.get("one_thread", {}).get("fp32_gflops", 0)
plausible = 0.3 <= read <= 6.5 and (not fp32 or fp32 / read >= 0.6 * 2 * lanes)
check((ghz is not None) == plausible and (ghz is None or ghz == read),
      f"clock {ghz} GHz of {read:.2f} read: kept exactly when the FP32 rate ({fp32:.1f} GFLOP/s, {lanes} lanes) "
      f"allows it")
check(ghz is None or (0 < ghz <= 6.5 and (not mhz or ghz <= 2.5 * max(mhz) / 1e3)),
      f"clock {ghz} GHz, at most 6.5 and 2.5x /proc/cpuinfo's {max(mhz) if mhz else '-'} MHz")
check(pr.get("logical_cpus") == os.cpu_count() and pr.get("threads") == os.cpu_count(),
      f"{pr.get('logical_cpus')} logical CPUs, {pr.get('threads')} threads (os.cpu_count {os.cpu_count()})")
want = sysfs_caches()
got = {c["level"]: (c["kib"], c["shared_by"]) for c in pr.get("caches", [])}
check(got == want, f"cache levels, sizes and sharing as sysfs says: {got} vs {want}")
# at a short --seconds the threads' start once dominated: all-thread peaks of
# 0.0001 to 14.5 GFLOP/s against 80 to 95 on one thread (issue 42, D). Each
# all-thread peak is now at least one thread's, or said not measured.
one, allt = pr.get("one_thread", {}), pr.get("all_threads", {})
unm = pr.get("all_threads_not_measured")
low = [k for k in one if k.endswith("_gflops") and allt.get(k, 0) < one[k] and k[:-7] not in (unm or [])]
check(unm is not None and not low and (os.cpu_count() == 1 or all(allt[k] >= one[k] for k in one if k.endswith("_gflops"))),
      f"all-thread peaks at --seconds 0.005 at least one thread's, or said not measured ({low}, {unm})")
n = pr.get("threads", 1)
check(all(c["kib_all_threads"] == c["kib"] * -(-n // c["shared_by"]) for c in pr.get("caches", [])),
      "what the threads reach together: each private level once per thread, a shared one once per group")
caches = doc.get("caches", [])
check(doc.get("fp32", 0) > 0 and doc.get("fp64", 0) > 0 and doc.get("bandwidth_gbs", 0) > 0 and caches
      and all(c["bandwidth_gbs"] > 0 for c in caches)
      and all(a["kib"] < b["kib"] for a, b in zip(caches, caches[1:])),
      "positive peaks and bandwidths, caches smallest first")
p1 = run("probe", "--format", "json", "--seconds", "0.005", "--threads", "1")
check(p1.returncode == 0 and json.loads(p1.stdout)["probe"]["threads"] == 1, "--threads 1")

spec = os.path.join(workdir, "machine.json")
p = run("probe", "-o", spec, "--seconds", "0.005")
t = run(model, "--batch", "1", "--machine", spec)
check(p.returncode == 0 and "All threads" in p.stdout and t.returncode == 0 and "Caches (" in t.stdout,
      "probe -o FILE prints the table and writes the file; --machine FILE reads it")
c = run(model, "--batch", "1", "--cpu")
check(c.returncode == 0 and "Predicted on" in c.stdout, "--cpu probes on the fly")

# the model against a hand-written machine, recomputed here
hand = {"name": "hand CPU", "kind": "cpu", "fp32": 0.1, "memory_gib": 8, "bandwidth_gbs": 10,
        "caches": [{"kib": 4, "bandwidth_gbs": 400}, {"kib": 64, "bandwidth_gbs": 100}]}
hp = os.path.join(workdir, "hand.json")
json.dump(hand, open(hp, "w"))
p = run(model, "--batch", "1", "--machine", hp, "--efficiency", "0.5", "--mem-efficiency", "0.8", "--launch-us", "2",
        "--format", "json")
d = json.loads(p.stdout) if p.returncode == 0 else {"nodes": []}
bad, levels = [], set()
for nd in d["nodes"]:
    g = nd.get("gpu")
    if not g or g.get("bound") in (None, "none"):
        continue
    moved = nd["bytes_read"] + nd["bytes_written"]
    bw = next((c["bandwidth_gbs"] for c in hand["caches"] if moved <= c["kib"] * 1024), hand["bandwidth_gbs"]) * 1e9
    levels.add(bw)
    tc, tm = nd["flops"] / (0.1e12 * 0.5), moved / (bw * 0.8)
    want_t = max(tc, tm) + 2e-6
    if abs(g["time_s"] - want_t) > 1e-9 * max(1, want_t) * 1e3 or abs(g["memory_s"] - tm) > 1e-15 + 1e-9 * tm:
        bad.append(f"{nd['name']}: {g['time_s']} vs {want_t}")
check(p.returncode == 0 and not bad and len(levels) >= 2,
      f"each node's time from its level's bandwidth ({len(levels)} levels used)" + (f": {bad[:3]}" if bad else ""))
# a calibrated machine: each cache level's own memory factor (0: memory's), unless
# --mem-efficiency is given (then it is every level's, as above)
cal = dict(hand, efficiency={"memory": 0.9, "memory_caches": [0.25, 0], "launch_us": 1})
cp = os.path.join(workdir, "hand_calibrated.json")
json.dump(cal, open(cp, "w"))
p2 = run(model, "--batch", "1", "--gpu-spec", cp, "--efficiency", "0.5", "--format", "json")
d2 = json.loads(p2.stdout) if p2.returncode == 0 else {"nodes": []}
bad2 = []
for nd in d2["nodes"]:
    g = nd.get("gpu")
    if not g or g.get("bound") in (None, "none"):
        continue
    moved = nd["bytes_read"] + nd["bytes_written"]
    lv = next((k for k, c in enumerate(hand["caches"]) if moved <= c["kib"] * 1024), None)
    bw = (hand["caches"][lv]["bandwidth_gbs"] if lv is not None else hand["bandwidth_gbs"]) * 1e9
    em = 0.25 if lv == 0 else 0.9
    tm = moved / (bw * em)
    if abs(g["memory_s"] - tm) > 1e-15 + 1e-9 * tm or abs(g["time_s"] - (max(nd["flops"] / 0.05e12, tm) + 1e-6)) > 1e-12:
        bad2.append(nd["name"])
opts = d2.get("gpu", {}).get("options", {})
check(p2.returncode == 0 and not bad2 and opts.get("efficiency_memory_caches") == [0.25, 0.9],
      f"a calibrated machine's per-level memory factors ({opts.get('efficiency_memory_caches')})"
      + (f": {bad2[:3]}" if bad2 else ""))
dev = d.get("gpu", {}).get("device", {})
check(dev.get("kind") == "cpu" and [c["bytes"] for c in dev.get("caches", [])] == [4096, 65536],
      "the JSON device says cpu and lists the caches")

# --threads N: the hand machine with one-thread figures (its "probe" record):
# each rate linear in the threads between one and all (4), recomputed here
ht = dict(hand, name="hand CPU, 4 threads",
          probe={"threads": 4, "one_thread": {"fp32_gflops": 25, "dram_gbs": 4},
                 "caches": [{"kib": 1, "shared_by": 1, "kib_all_threads": 4, "one_thread_gbs": 100},
                            {"kib": 64, "shared_by": 4, "kib_all_threads": 64, "one_thread_gbs": 40}]})
htp = os.path.join(workdir, "hand_threads.json")
json.dump(ht, open(htp, "w"))
p3 = run(model, "--batch", "1", "--machine", htp, "--threads", "2", "--efficiency", "0.5", "--mem-efficiency", "0.8",
         "--launch-us", "2", "--format", "json")
d3 = json.loads(p3.stdout) if p3.returncode == 0 else {"nodes": []}
f = 1 / 3  # 2 of 4 threads: a third of the way from one to all
caches2 = [(2, 100 + (400 - 100) * f), (64, 40 + (100 - 40) * f)]  # (KiB at 2 threads, GB/s)
bad3 = []
for nd in d3["nodes"]:
    g = nd.get("gpu")
    if not g or g.get("bound") in (None, "none"):
        continue
    moved = nd["bytes_read"] + nd["bytes_written"]
    bw = next((gbs for kib, gbs in caches2 if moved <= kib * 1024), 4 + (10 - 4) * f) * 1e9
    want_t = max(nd["flops"] / ((25 + 75 * f) * 1e9 * 0.5), moved / (bw * 0.8)) + 2e-6
    if abs(g["time_s"] - want_t) > 1e-9 * max(1, want_t) * 1e3:
        bad3.append(f"{nd['name']}: {g['time_s']} vs {want_t}")
check(p3.returncode == 0 and not bad3 and d3["gpu"]["device"]["name"] == "hand CPU, 2 threads",
      "--threads 2: every node's time from the rates two threads reach" + (f": {bad3[:3]}" if bad3 else ""))
kept = json.load(open(spec)).get("probe", {}).get("one_thread")
p5 = run(model, "--batch", "1", "--machine", spec, "--threads", "1")
check(p5.returncode == 0 and ", 1 thread from" in p5.stdout and kept,
      "a probed machine predicts at one thread (its header names it)")

# the runs sweep (probe --sweep-model): the model ONNX Runtime loads and runs.
# Its runs nodes read their inputs of 1024 elements or more through an Abs
# (a graph input is read cold) and are read by a ReduceMax (a graph output is
# allocated afresh), each node's output of its first input's shape; each
# node's runs by hand: [R, S] + [S] repeats the bias over R rows, R spans
# (one when R is 1); a LayerNormalization or Softmax over the last axis of
# [R, S], R rows. The chains over [R, 16] (R = 1 to 16384) end in a
# ReduceMax of one value; their nodes one run, but the Softmax and the
# LayerNormalization R rows. The small products: per M a chain of MatMuls by
# [K, N] initializers through K, N of 2, 8, 32, from [M, 2] to [M, 2]; per
# heads bh, length S and head size d, scores [bh,S,d] x [bh,d,S] then their
# product with [bh,S,d]; every product one run
sweep = os.path.join(workdir, "runs_sweep.onnx")
p6 = run("probe", "--sweep-model", sweep)
check(p6.returncode == 0 and os.path.exists(sweep) and not p6.stdout, f"probe --sweep-model writes the sweep: {p6.stderr}")
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
except ImportError as e:
    check(False, f"the oracle Python has numpy, onnx and onnxruntime (.ci/install-deps): {e}")
else:
    m = onnx.load(sweep)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in m.graph.input}
    weights = {w.name: list(w.dims) for w in m.graph.initializer}
    made = {o: n for n in m.graph.node for o in n.output}
    numel = lambda v: int(np.prod(shapes[v])) if v in shapes else None  # noqa: E731
    runs_nodes = [n for n in m.graph.node if n.name.startswith("runs/") and n.name.count("/") == 1]
    small = [n for n in m.graph.node if n.name.startswith("small/") and "/chain_" not in n.name]
    products = [n for n in m.graph.node if n.name.startswith("products/")]
    chain_ops = ["Relu", "Sigmoid", "Tanh", "Erf", "Add", "Mul", "Sub", "Div", "Greater", "Where", "Softmax",
                 "LayerNormalization", "Transpose", "Cast", "Concat", "Cast", "Neg", "ReduceMax"]
    path = [2, 2, 8, 8, 32, 32, 2, 32, 8, 2]
    flat = [n for n in products if n.input[-1] in weights]
    # each runs node's inputs: a graph input under 1024 elements, else an Abs of one; its output read by a ReduceMax
    fed = all((x in shapes and numel(x) < 1024) or (made[x].op_type == "Abs" and numel(made[x].input[0]) >= 1024)
              for n in runs_nodes for x in n.input)
    reads = {x for n in m.graph.node if n.op_type == "ReduceMax" for x in n.input}
    check(len(runs_nodes) == 72 and {n.op_type for n in runs_nodes} == {"Add", "LayerNormalization", "Softmax"}
          and fed and all(n.output[0] in reads for n in runs_nodes)
          and [n.op_type for n in small] == chain_ops * 6
          and [n.op_type for n in products] == (["MatMul"] * 9 + ["ReduceMax"]) * 5 + ["MatMul", "MatMul", "ReduceMax"] * 12
          and [weights[n.input[1]] for n in flat] == [[path[k], path[k + 1]] for k in range(9)] * 5,
          f"the sweep: 72 runs nodes fed warm and read, 6 chains of {len(chain_ops)} small nodes, 45 products by packed "
          f"weights and 24 batched ones ({len(runs_nodes)}, {len(small)}, {len(products)})")
    sess = ort.InferenceSession(sweep, providers=["CPUExecutionProvider"])
    feeds = {i.name: np.asarray(np.random.rand(*shapes[i.name]), dtype=np.float32) for i in sess.get_inputs()}
    names = [o for n in m.graph.node for o in n.output]
    inner = onnx.helper.make_model(m.graph, opset_imports=m.opset_import)  # every value an output, to read shapes
    inner.graph.output.extend(onnx.helper.make_empty_tensor_value_info(v) for v in names
                              if v not in {o.name for o in m.graph.output})
    s2 = ort.InferenceSession(inner.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = dict(zip([o.name for o in s2.get_outputs()], s2.run(None, feeds)))
    first = lambda n: list(outs[n.input[0]].shape) if n.input[0] in outs else shapes[n.input[0]]  # noqa: E731
    ends = {n.output[0]: list(outs[n.output[0]].shape) for n in small + products if n.op_type == "ReduceMax"}
    prod_last = [list(outs[n.output[0]].shape) for n in products if n.op_type == "MatMul"]
    want_last = ([[mm, path[k + 1]] for mm in (1, 8, 64, 512, 4096) for k in range(9)]
                 + [s for bh in (2, 16) for sq in (32, 128) for d in (16, 4, 1) for s in ([bh, sq, sq], [bh, sq, d])])
    check(all(list(outs[n.output[0]].shape) == first(n) for n in runs_nodes)
          and len(ends) == 6 + 17 and all(v == [] for v in ends.values()) and sorted(prod_last) == sorted(want_last),
          "ONNX Runtime runs the sweep, every output of the shape its nodes give")
    want = {n.name: (first(n)[0] if len(n.input) > 1 and first(n) != (list(outs[n.input[1]].shape) if n.input[1] in outs
                                                                      else shapes[n.input[1]])
                     or n.op_type in ("Softmax", "LayerNormalization") else 1)
            for n in runs_nodes}
    want.update({n.name: int(n.name.rsplit("_", 1)[1]) // 16 if n.op_type in ("Softmax", "LayerNormalization") else 1
                 for n in small + products})
    p7 = run(sweep, "--machine", hp, "--format", "json", "-q")
    got = {nd["name"]: (nd.get("gpu") or {}).get("runs", 1) for nd in json.loads(p7.stdout)["nodes"]} \
        if p7.returncode == 0 else {}
    bad = [f"{k}: {got.get(k)} vs {v}" for k, v in want.items() if got.get(k) != v]
    check(p7.returncode == 0 and not bad, "the sweep's runs, by hand from its shapes" + (f": {bad[:3]}" if bad else ""))

# probe --calibrate: one command from the probe to a spec with fitted factors and kernel tables, through
# ONNX Runtime (measure: the Python that runs this check); every step said, the folder it used gone, and
# the spec read back by a prediction (its figures are this machine's, never asserted)
try:
    import onnxruntime  # noqa: F401
    have_ort = True
except ImportError:
    have_ort = False
if have_ort:
    tmpdir = os.path.join(workdir, "calibrate_tmp")
    os.makedirs(tmpdir, exist_ok=True)
    cal = os.path.join(workdir, "calibrated_cpu.json")
    pc = subprocess.run([onnxcost, "probe", "--calibrate", "-o", cal], capture_output=True, text=True, timeout=600,
                        env=dict(os.environ, TMPDIR=tmpdir, ONNXCOST_PYTHON=sys.executable))
    steps = [ln for ln in pc.stderr.splitlines() if ln.startswith("onnxcost: probe --calibrate: [")]
    doc = json.load(open(cal)) if pc.returncode == 0 and os.path.exists(cal) else {}
    check(pc.returncode == 0 and len(steps) == 6 and steps[-1].startswith("onnxcost: probe --calibrate: [6/6]"),
          f"--calibrate: exit {pc.returncode}, {len(steps)} of 6 steps said ({pc.stderr.strip().splitlines()[-1:]})")
    check(doc.get("kind") == "cpu" and doc.get("kernel_tables") and doc.get("efficiency"),
          f"--calibrate: the spec holds the fitted factors and the kernel tables ({sorted(doc)})")
    check(f"written to {cal}: use it with --gpu-spec {cal}" in pc.stdout and "onnxcost-calibrate-" not in pc.stdout,
          "--calibrate: the reports name the spec written, not the folder's files")
    left = [f for f in os.listdir(tmpdir) if f.startswith("onnxcost-")]  # (ONNX Runtime leaves a .ses of its own)
    check(left == [], f"--calibrate: its folder removed ({left})")
    pp = run(model, "--gpu-spec", cal, "--format", "json", "-q")
    t = (json.loads(pp.stdout).get("gpu") or {}).get("latency_s") if pp.returncode == 0 else None
    check(t is not None and t > 0, f"--calibrate: the spec times a model ({t})")
else:
    print("skip: probe --calibrate (no onnxruntime in this Python)")

# one line, exit 2
hb = os.path.join(workdir, "bad_caches.json")
json.dump(dict(hand, caches=[{"kib": 64, "bandwidth_gbs": 1}, {"kib": 4, "bandwidth_gbs": 1}]), open(hb, "w"))
for what, args, needle in [("a model given to probe", ["probe", model], "unknown argument"),
                           ("--seconds 0", ["probe", "--seconds", "0"], "--seconds"),
                           ("--sweep-model with -o", ["probe", "--sweep-model", sweep, "-o", spec], "measures nothing"),
                           ("--calibrate without -o", ["probe", "--calibrate"], "give -o FILE"),
                           ("--calibrate with --seconds", ["probe", "--calibrate", "--seconds", "1", "-o", spec],
                            "-o and --threads only"),
                           ("caches not smallest first", [model, "--machine", hb], "caches"),
                           ("--threads on a GPU", [model, "--gpu", "h100", "--threads", "2"], "for a CPU"),
                           ("--threads without one-thread figures", [model, "--machine", hp, "--threads", "2"],
                            "no one-thread figures"),
                           ("--threads 0", [model, "--machine", htp, "--threads", "0"], "from 1 to 65536")]:
    p = run(*args)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and needle in lines[0], f"{what}: exit {p.returncode}, {lines[:1]}")
print(f"{'FAIL' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
