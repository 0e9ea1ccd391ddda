#!/usr/bin/env python3
"""`onnxcost tables` and a --gpu-spec file's kernel tables, against figures
worked out here (docs/MODEL.md, "Kernel tables").

A model x[N, 8] -> MatMul W1[8, 16] -> Relu -> MatMul W2[16, 4] -> y and a
replay result written here for it at N=4 (times chosen here: 2.0, 1.0 and
1.5 microseconds):
  * the spec file holds a gemm table (f32, fp32) of two samples, features
    (M, N, K) = (4, 16, 8) and (4, 4, 16), work 2MNK FLOPs = 1,024 and 512,
    and an eltwise table (f32) of one: 4 x 16 floats read and written, 512
    bytes, in one run; the device keys of --gpu h200;
  * with --gpu-spec it at N=4: the Relu's time is its own sample's, 1.0 us
    plus the launch, also from a table written before the runs were kept
    (bytes, work, seconds); the first MatMul's the inverse squared distance blend of
    its own sample (distance 0) and the other (distance sqrt 5 in log2
    units); the text names the tables and counts them;
  * at N=64 the products are 4 log2 units from every sample: the roofline
    times them (time_source "roofline"), the Relu (bytes 16x, also 4 units
    away) too;
  * under --math tf32 the fp32 table does not apply;
  * a second build with --gpu-spec the first keeps its samples and adds the
    new ones;
  * a result whose model is not found, a file that is no replay result and a
    malformed kernel_tables key each get one line and exit 2.

  * a CPU's LayerNormalization over 4096 rows takes its op's own cost per
    run (20 ns, from its table's samples), not the spec's fitted 10 ns;
  * the committed H200 tables load and time at least half the MNIST net's
    kernels.

usage: tables_check.py ONNXCOST WORKDIR SOURCE_DIR   (exit 77 without onnx)
"""
import json
import math
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper as h, numpy_helper
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(bin_, *args):
    return subprocess.run([bin_, *args], capture_output=True, text=True)


def node_result(name, op, flops, macs, rd, wr, ns):
    return {"name": name, "op": op, "status": "measured",
            "estimate": {"flops": flops, "macs": macs, "bytes_read": rd, "bytes_written": wr, "dtype": "f32"},
            "time_ns": {"median": ns, "p10": ns, "p90": ns, "min": ns, "reps": 10}, "kernels_per_rep": 1}


def main():
    bin_, work, srcdir = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = np.random.default_rng(0)
    nodes = [h.make_node("MatMul", ["x", "W1"], ["a"], name="mm1"), h.make_node("Relu", ["a"], ["r"], name="relu"),
             h.make_node("MatMul", ["r", "W2"], ["y"], name="mm2")]
    g = h.make_graph(nodes, "t", [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
                     [h.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
                     [numpy_helper.from_array(rng.standard_normal((8, 16)).astype(np.float32), "W1"),
                      numpy_helper.from_array(rng.standard_normal((16, 4)).astype(np.float32), "W2")])
    model = os.path.join(work, "tiny.onnx")
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), model)
    n = 4
    result = {"schema": "onnxcost-replay/1", "model": "/elsewhere/tiny.onnx",
              "device": {"name": "NVIDIA H200"}, "plugin": "hand-written",
              "options": {"math": "fp32", "bindings": {"N": n}, "dtype": None},
              "nodes": [node_result("mm1", "MatMul", 2 * n * 16 * 8, n * 16 * 8, (n * 8 + 8 * 16) * 4, n * 16 * 4, 2000),
                        node_result("relu", "Relu", n * 16, 0, n * 16 * 4, n * 16 * 4, 1000),
                        node_result("mm2", "MatMul", 2 * n * 4 * 16, n * 4 * 16, (n * 16 + 16 * 4) * 4, n * 4 * 4,
                                    1500)]}
    res = os.path.join(work, "tiny_b4-fp32.json")
    json.dump(result, open(res, "w"))
    spec = os.path.join(work, "spec.json")
    p = run(bin_, "tables", res, "--models", work, "--gpu", "h200", "-o", spec, "--format", "json")
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    sp = json.load(open(spec)) if os.path.exists(spec) else {}
    tables = {(t["family"], t["dtype"], t.get("math")): t for t in sp.get("kernel_tables", {}).get("tables", [])}
    gemm = tables.get(("gemm", "f32", "fp32"), {}).get("samples")
    elt = tables.get(("eltwise", "f32", None), {}).get("samples")
    check(p.returncode == 0 and sorted(map(tuple, gemm or [])) == sorted([(4, 16, 8, 1024, 2e-6), (4, 4, 16, 512, 1.5e-6)])
          and elt == [[512, 1, 512, 1e-6]] and sp.get("name", "").startswith("NVIDIA H200") and doc.get("files", [{}])[0].get("samples") == 3,
          f"tables: gemm samples {gemm}, eltwise {elt}, device {sp.get('name')} ({p.stderr.strip()[:200]})")

    p = run(bin_, model, "--dim", f"N={n}", "--gpu-spec", spec, "--math", "fp32", "--format", "json", "-q")
    d = json.loads(p.stdout) if p.returncode == 0 else {"nodes": [], "gpu": {"options": {}}}
    launch = d["gpu"]["options"].get("launch_s", 0)
    by = {x["name"]: x["gpu"] for x in d["nodes"]}
    relu, mm1 = by.get("relu", {}), by.get("mm1", {})
    check(relu.get("time_source") == "table" and abs(relu["time_s"] - (1e-6 + launch)) < 1e-15,
          f"the Relu from its own sample: {relu.get('time_s')} s, want {1e-6 + launch} ({relu.get('time_source')})")
    # a table written before the runs were kept ([bytes, work, seconds]) reads as one run: the same time
    old = json.loads(json.dumps(sp))
    for t in old["kernel_tables"]["tables"]:
        if t["family"] == "eltwise":
            t["samples"] = [[x[0]] + x[2:] for x in t["samples"]]
    old_spec = os.path.join(work, "spec_old.json")
    json.dump(old, open(old_spec, "w"))
    p = run(bin_, model, "--dim", f"N={n}", "--gpu-spec", old_spec, "--math", "fp32", "--format", "json", "-q")
    r_old = {x["name"]: x["gpu"] for x in json.loads(p.stdout)["nodes"]}.get("relu", {}) if p.returncode == 0 else {}
    check(r_old.get("time_source") == "table" and r_old.get("time_s") == relu.get("time_s"),
          f"an eltwise sample without its runs reads as one run: {r_old.get('time_s')} s ({p.stderr.strip()[:200]})")
    # mm1: its own sample at distance 0, mm2's at sqrt(0^2 + 2^2 + 1^2) in log2 units
    w0, w1 = 1 / 0.25 ** 2, 1 / (math.sqrt(5) + 0.25) ** 2
    eff = math.exp((w0 * math.log(1024 / 2e-6) + w1 * math.log(512 / 1.5e-6)) / (w0 + w1))
    want = 1024 / eff + launch
    check(mm1.get("time_source") == "table" and abs(mm1["time_s"] - want) < 1e-12 * want,
          f"the first MatMul blends its sample and the other's: {mm1.get('time_s')} s, want {want}")
    check(d["gpu"].get("table_kernels") == 3, f"3 kernels from the tables ({d['gpu'].get('table_kernels')})")
    p = run(bin_, model, "--dim", f"N={n}", "--gpu-spec", spec, "--math", "fp32", "-q")
    check("Kernel tables (NVIDIA H200): 3 of 3 kernels" in p.stdout, "the text names the tables and counts them")
    p = run(bin_, model, "--dim", "N=64", "--gpu-spec", spec, "--math", "fp32", "--format", "json", "-q")
    d = json.loads(p.stdout) if p.returncode == 0 else {"nodes": []}
    src = {x["name"]: x["gpu"]["time_source"] for x in d["nodes"]}
    check(src == {"mm1": "roofline", "relu": "roofline", "mm2": "roofline"},
          f"at N=64, 4 log2 units from every sample: the roofline ({src})")
    p = run(bin_, model, "--dim", f"N={n}", "--gpu-spec", spec, "--math", "tf32", "--format", "json", "-q")
    d = json.loads(p.stdout) if p.returncode == 0 else {"nodes": []}
    src = {x["name"]: x["gpu"]["time_source"] for x in d["nodes"]}
    check(src.get("mm1") == "roofline" and src.get("relu") == "table",
          f"--math tf32: the fp32 products' table does not apply, the elementwise one does ({src})")

    again = os.path.join(work, "spec2.json")
    p = run(bin_, "tables", res, "--models", work, "--gpu-spec", spec, "-o", again)
    sp2 = json.load(open(again)) if os.path.exists(again) else {}
    n2 = {(t["family"]): len(t["samples"]) for t in sp2.get("kernel_tables", {}).get("tables", [])}
    check(p.returncode == 0 and n2 == {"gemm": 4, "eltwise": 2},
          f"a build on a spec with tables keeps its samples and adds the new: {n2}")

    # a measure result (onnxcost measure --format json) at N=16: its samples at the dims it ran at, read from its
    # "bindings" (features (16, 16, 8) and (16, 4, 16)), not at the graph's unbound N
    m = 16
    meas = {"schema": "onnxcost/1", "model": {"path": model}, "bindings": {"N": m},
            "nodes": [{"name": nm, "op_type": op, "status": "ok", "flops": fl, "macs": 0, "bytes_read": 1,
                       "bytes_written": 1, "outputs": [{"name": nm, "dtype": "f32"}], "measured": {"median_us": us}}
                      for nm, op, fl, us in (("mm1", "MatMul", 2 * m * 16 * 8, 3.0),
                                             ("mm2", "MatMul", 2 * m * 4 * 16, 2.0))],
            "measured": {"providers": "CPUExecutionProvider", "end_to_end_ms": {"median": 0.01},
                         "duration_offset_us": 0.5, "sum_of_node_medians_ms": 0.005,
                         "run": {"intra_op_threads": 1, "cpu": "hand CPU"}}}
    mres = os.path.join(work, "tiny_measured_n16.json")
    json.dump(meas, open(mres, "w"))
    mspec = os.path.join(work, "spec_measured.json")
    p = run(bin_, "tables", mres, "--gpu", "h200", "-o", mspec)
    sp3 = json.load(open(mspec)) if os.path.exists(mspec) else {}
    got = sorted(tuple(x) for t in sp3.get("kernel_tables", {}).get("tables", []) if t["family"] == "gemm"
                 for x in t["samples"])
    check(p.returncode == 0 and got == sorted([(16, 16, 8, 4096, 3e-6), (16, 4, 16, 2048, 2e-6)]),
          f"a measure result's samples at its own bindings N=16: {got} ({p.stderr.strip()[:200]})")
    th = [t.get("threads") for t in sp3.get("kernel_tables", {}).get("tables", [])]
    check(th == [1], f"a measure result's table keeps the thread count it ran with (1): {th}")

    del meas["bindings"]  # the same without its bindings and without --dim: refused, not timed at N=1
    json.dump(meas, open(mres, "w"))
    p = run(bin_, "tables", mres, "--gpu", "h200", "-o", mspec + ".unbound")
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "'N'" in lines[0] and "--dim N=" in lines[0]
          and not os.path.exists(mspec + ".unbound"), f"a result at unbound dims: one line, exit 2 ({lines})")

    # a CPU's LayerNormalization over x[4096, 2] (4096 rows, 65,552 bytes) from a table of its op whose samples at
    # those bytes take 3 us + 20 ns a row after the first + bytes at 1 GB/s over 1, 64, 1024 and 16384 rows, where
    # the spec's fitted cost per run is 10 ns: the op's own 20 ns prices the node's 4095 runs after its first (the
    # samples' pairs of 4x the rows and 1.5x the time: 16384 rows against each other), its samples' 3 us come off
    # and its bytes take 1 GB/s
    ln_nodes = [h.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln", axis=-1)]
    lg = h.make_graph(ln_nodes, "ln", [h.make_tensor_value_info("x", TensorProto.FLOAT, [4096, 2])],
                      [h.make_tensor_value_info("y", TensorProto.FLOAT, [4096, 2])],
                      [numpy_helper.from_array(np.ones(2, np.float32), "g"),
                       numpy_helper.from_array(np.zeros(2, np.float32), "b")])
    ln_model = os.path.join(work, "ln.onnx")
    onnx.save(h.make_model(lg, opset_imports=[h.make_opsetid("", 17)]), ln_model)
    by_ = 4096 * 2 * 4 * 2 + 2 * 2 * 4
    cpu = {"name": "hand CPU", "kind": "cpu", "fp32": 0.1, "memory_gib": 8, "bandwidth_gbs": 10,
           "efficiency": {"launch_us": 3, "run_us": 0.01},
           "kernel_tables": {"source": "hand", "tables": [
               {"family": "reduce", "dtype": "f32", "op": "LayerNormalization", "samples": [
                   [by_, r, by_, 3e-6 + (r - 1) * 20e-9 + by_ / 1e9] for r in (1, 64, 1024, 16384)]}]}}
    cpu_spec = os.path.join(work, "cpu_tables.json")
    json.dump(cpu, open(cpu_spec, "w"))
    p = run(bin_, ln_model, "--gpu-spec", cpu_spec, "--format", "json", "-q")
    ln = {x["name"]: x["gpu"] for x in json.loads(p.stdout)["nodes"]}.get("ln", {}) if p.returncode == 0 else {}
    want = 3e-6 + 4095 * 20e-9 + by_ / 1e9
    check(ln.get("time_source") == "table" and abs(ln.get("time_s", 0) - want) < 1e-9 * want,
          f"a CPU LayerNormalization's runs at its op's own cost: {ln.get('time_s')} s, want {want} "
          f"({p.stderr.strip()[:200]})")

    big_result = os.path.join(work, "big_result.json")
    with open(res) as f, open(big_result, "w") as g:
        g.write(f.read() + " " * (65 << 20))
    for tag, args, text in (
            ("no model", ["tables", res, "--models", os.path.join(work, "nowhere")], "cannot open"),
            ("not a result", ["tables", model], "not JSON"),
            # a folder was read as an empty file: "not JSON"
            ("a folder", ["tables", work], "a folder, not a result file"),
            ("a folder to calibrate", ["calibrate", work], "a folder, not a result file"),
            ("a folder to merge", ["merge", work, res], "a folder, not a result file"),
            ("a result of 65 MiB", ["calibrate", big_result], "more than the 64 MiB onnxcost reads"),
    ):
        p = run(bin_, *args)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and text in lines[0], f"{tag}: one line, exit 2 ({lines})")
    bad = os.path.join(work, "bad.json")
    sp["kernel_tables"]["tables"][0]["samples"][0] = [1, 2]
    json.dump(sp, open(bad, "w"))
    p = run(bin_, model, "--gpu-spec", bad)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "kernel_tables" in lines[0] and "sample 0" in lines[0],
          f"a sample of the wrong length: one line, exit 2 ({lines})")
    # a table of a million samples had cost 8.3 s and 330 MB on every run: at most 65,536, and a spec file
    # of at most 32 MiB, each refused in one line before it costs
    row = sp["kernel_tables"]["tables"][0]["samples"][1]
    sp["kernel_tables"]["tables"][0]["samples"] = [row] * 70000
    json.dump(sp, open(bad, "w"))
    p = run(bin_, model, "--gpu-spec", bad)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "at most 65,536 (has 70000)" in lines[0],
          f"a table of 70,000 samples: one line, exit 2 ({lines})")
    sp["kernel_tables"]["tables"][0]["samples"] = [row] * 10
    with open(bad, "w") as f:
        f.write(json.dumps(sp) + " " * (33 << 20))
    p = run(bin_, model, "--gpu-spec", bad)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "more than the 32 MiB" in lines[0],
          f"a spec file of 33 MiB: one line, exit 2 ({lines})")
    # a sample's seconds of 1e300 (a 300-digit latency) or 1e-320 (inf TFLOP/s): refused where read
    for secs in (1e300, 1e-320):
        sp["kernel_tables"]["tables"][0]["samples"][0] = [1.0] * (len(sp["kernel_tables"]["tables"][0]["samples"][1]) - 1) + [secs]
        json.dump(sp, open(bad, "w"))
        p = run(bin_, model, "--gpu-spec", bad)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "sample 0" in lines[0] and "seconds from 1e-12 to 1e5" in lines[0],
              f"a sample of {secs} s: one line, exit 2 ({lines})")
    # the committed H200 tables (docs/results/h200-kernel-tables.json) load and time the MNIST net's kernels
    committed = os.path.join(srcdir, "docs", "results", "h200-kernel-tables.json")
    net = os.path.join(srcdir, "fixtures", "mnist", "torchsummary_net.onnx")
    p = run(bin_, net, "--batch", "32", "--gpu-spec", committed, "--math", "fp32", "--format", "json", "-q")
    d = json.loads(p.stdout)["gpu"] if p.returncode == 0 else {}
    check(d.get("table_kernels", 0) >= d.get("kernels", 1) // 2 and "H200" in (d.get("tables_source") or ""),
          f"the committed H200 tables time {d.get('table_kernels')} of the MNIST net's {d.get('kernels')} kernels")
    # the probe's committed BF16 tables (docs/results/h200-probe-bf16.json) time BF16 kernels, and only them
    probe = os.path.join(srcdir, "docs", "results", "h200-probe-bf16.json")
    p = run(bin_, net, "--batch", "32", "--gpu-spec", probe, "--dtype", "bf16", "--format", "json", "-q")
    d = json.loads(p.stdout)["gpu"] if p.returncode == 0 else {}
    check(d.get("table_kernels", 0) >= d.get("kernels", 1) // 2 and "probe --gpu" in (d.get("tables_source") or ""),
          f"the probe's BF16 tables time {d.get('table_kernels')} of the MNIST net's {d.get('kernels')} kernels")
    p = run(bin_, net, "--batch", "32", "--gpu-spec", probe, "--dtype", "fp16", "--format", "json", "-q")
    d = json.loads(p.stdout)["gpu"] if p.returncode == 0 else {"table_kernels": -1}
    check(d.get("table_kernels") == 0, f"BF16 tables time no FP16 kernel (got {d.get('table_kernels')})")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("all tables checks passed")


if __name__ == "__main__":
    main()
