#!/usr/bin/env python3
"""What the Python package costs next to the CLI, on GPT-2 small (124M, 12 layers).

usage: .venv/bin/python bench/python_api.py [--out DIR] [--runs N]   (DIR: bench/out)

Measures:
  1. `pip install <repo>` into a fresh venv (DIR/pyvenv, made from /usr/bin/python3),
     the way a user does it: with build isolation, so pip fetches scikit-build-core
     from PyPI and the C library is built from scratch. Wall seconds, one run.
  2. Process start to exit, median and min over N runs (one untimed warm-up each):
     the CLI (`build/onnxcost M --dim batch=1 --dim sequence=128 --format json -q`),
     `pyvenv/bin/python -c "import onnxcost; onnxcost.analyze(M, dims=...)"`, and
     `pyvenv/bin/python -c pass` (interpreter start alone, to subtract).
  3. In one process of the venv: `import onnxcost` once, and analyze() repeated
     20 times (median) reading its totals, then reading every node row.
It fails if the Python analysis totals differ from the CLI JSON's "totals".

GPT-2 is DIR/gpt2.onnx, made by bench/bench.py's make_model() when missing (plain
PyTorch, random weights, nothing downloaded). Writes DIR/python_api.md.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402  (stdlib only at import; reused for make_model, LLM_DIMS, warm)

IN_PROCESS = r"""
import json, statistics, sys, time
path, dims = sys.argv[1], json.loads(sys.argv[2])
t0 = time.perf_counter()
import onnxcost
t_import = time.perf_counter() - t0
times, times_nodes = [], []
for _ in range(20):
    t0 = time.perf_counter()
    a = onnxcost.analyze(path, dims=dims)
    a.totals
    times.append(time.perf_counter() - t0)
for _ in range(20):
    t0 = time.perf_counter()
    onnxcost.analyze(path, dims=dims).nodes
    times_nodes.append(time.perf_counter() - t0)
print(json.dumps({"import_s": t_import, "analyze_s": statistics.median(times),
                  "nodes_s": statistics.median(times_nodes),
                  "version": onnxcost.__version__, "totals": a.totals,
                  "python": sys.version.split()[0]}))
"""


def log(msg):
    print("[python_api %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def wall(cmd, **kw):
    """Seconds from process start to exit (stdout discarded unless kw says otherwise)."""
    kw.setdefault("stdout", subprocess.DEVNULL)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - t0


def repeat(cmd, runs):
    wall(cmd)  # warm-up, not counted
    times = [wall(cmd) for _ in range(runs)]
    return statistics.median(times), min(times)


def ms(s):
    return "%.1f ms" % (s * 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=bench.OUT, help="output folder (default bench/out)")
    ap.add_argument("--runs", type=int, default=10, help="process runs per measurement (default 10)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    t_start = time.perf_counter()

    # 1. a fresh venv and a normal `pip install <repo>`
    venv = os.path.join(out, "pyvenv")
    py = os.path.join(venv, "bin", "python")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
    pip_version = subprocess.run([py, "-m", "pip", "--version"], check=True, capture_output=True,
                                 text=True).stdout.split()[1]
    log("pip install %s (log: %s/pip_install.log)" % (ROOT, out))
    with open(os.path.join(out, "pip_install.log"), "w") as f:
        t_install = wall([os.path.join(venv, "bin", "pip"), "install", ROOT], stdout=f, stderr=f)
    log("installed in %.1f s" % t_install)

    # 2. the model, as bench.py makes it
    bench.OUT = out  # make_model() writes under bench.OUT
    model = os.path.join(out, "gpt2.onnx")
    if not os.path.exists(model):
        log("exporting GPT-2 to " + model)
    bench.make_model("gpt2", "gpt2.onnx", ("gpt2",), sys.executable)
    bench.warm(model)
    it = iter(bench.LLM_DIMS[1::2])  # ["batch=1", "sequence=128"]
    dims = {k: int(v) for k, v in (s.split("=") for s in it)}

    # 3. the same analysis from the CLI and from Python, then the timings
    cli = [os.path.join(ROOT, "build", "onnxcost"), model] + bench.LLM_DIMS + ["--format", "json", "-q"]
    report = json.loads(subprocess.run(cli, check=True, capture_output=True, text=True).stdout)
    inproc = json.loads(subprocess.run([py, "-c", IN_PROCESS, model, json.dumps(dims)], check=True,
                                       capture_output=True, text=True).stdout)
    if inproc["totals"] != report["totals"]:
        sys.exit("FAIL: Python totals differ from the CLI's\n  python: %s\n  cli:    %s"
                 % (json.dumps(inproc["totals"], sort_keys=True), json.dumps(report["totals"], sort_keys=True)))
    log("totals agree (CLI and Python): %d params, %d MACs" % (report["totals"]["params"], report["totals"]["macs"]))

    py_cmd = [py, "-c", "import onnxcost; onnxcost.analyze(%r, dims=%r)" % (model, dims)]
    log("timing %d runs each" % args.runs)
    t_cli = repeat(cli, args.runs)
    t_py = repeat(py_cmd, args.runs)
    t_pass = repeat([py, "-c", "pass"], args.runs)

    # 4. the machine
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    m = report["model"]
    dim_args = " ".join(bench.LLM_DIMS)
    rows = [
        ("`pip install .` in a fresh venv (build isolation, from PyPI)", "%.1f s" % t_install, "", "1 run"),
        ("CLI: `onnxcost gpt2.onnx %s --format json -q`" % dim_args, ms(t_cli[0]), ms(t_cli[1]), "process start to exit"),
        ("Python: `python -c \"import onnxcost; onnxcost.analyze(...)\"`", ms(t_py[0]), ms(t_py[1]),
         "process start to exit"),
        ("Python: `python -c pass`", ms(t_pass[0]), ms(t_pass[1]), "interpreter start alone"),
        ("Python minus `pass`", ms(t_py[0] - t_pass[0]), "", "import + analyze + exit, medians"),
        ("in process: `import onnxcost`", ms(inproc["import_s"]), "", "first import, 1 run"),
        ("in process: `onnxcost.analyze(...)` and its totals", ms(inproc["analyze_s"]), "", "median of 20 calls"),
        ("in process: the same and every node row (`a.nodes`)", ms(inproc["nodes_s"]), "", "median of 20 calls"),
    ]
    lines = [
        "# onnxcost Python API vs CLI: GPT-2 small (%s)" % time.strftime("%Y-%m-%d"),
        "",
        "Model: gpt2.onnx, %.1f MB, %d nodes, %s params, %s MACs (dims %s). Runs: %d per row, one warm-up "
        "before; totals from Python and the CLI agree." % (m["file_bytes"] / 1e6, m["n_nodes"],
                                                           format(report["totals"]["params"], ","),
                                                           format(report["totals"]["macs"], ","), dims, args.runs),
        "",
        "| measurement | median | min | note |",
        "|---|---:|---:|---|",
    ] + ["| %s | %s | %s | %s |" % r for r in rows] + [
        "",
        "Machine: %s CPUs (nproc), %s; Python %s (venv from /usr/bin/python3, pip %s); onnxcost %s."
        % (subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(), cpu, inproc["python"],
           pip_version, inproc["version"]),
        "",
    ]
    md = "\n".join(lines)
    with open(os.path.join(out, "python_api.md"), "w") as f:
        f.write(md)
    print(md)
    log("done in %.1f s; wrote %s" % (time.perf_counter() - t_start, os.path.join(out, "python_api.md")))


if __name__ == "__main__":
    main()
