#!/usr/bin/env python3
"""The self-contained wheel, and onnxcost from Python beside the Python tools
people reach for, on GPT-2 small (124M, 12 layers), in one run.

usage: .venv/bin/python bench/wheel_peers.py [--out DIR] [--runs N]   (DIR: bench/out)

Measures:
  1. The wheel: `pip wheel` of this tree (no build isolation), `auditwheel
     repair` (libjansson and libprotobuf-c grafted in): its size and tag.
  2. Install time from the local wheel into a fresh venv (`pip install
     --no-index`, the venv made beforehand, not timed), median of N.
  3. Import time: `python -c "import onnxcost"` minus `python -c pass`,
     process medians over N runs each, interleaved.
  4. In one process of a peers venv (DIR/peers-venv: torchinfo, onnx-tool,
     transformers pinned; Debian's torch; the same wheel installed):
     - torchinfo.summary(GPT2LMHeadModel(GPT2Config()), input_data=ids[1, 128])
     - onnx_tool.model_profile(gpt2.onnx, dynamic_shapes={input_ids: [1, 128]})
     - onnxcost.analyze(gpt2.onnx, dims={batch: 1, sequence: 128})
     - onnxcost.summary(the same module, input_data=ids): export + analysis
     each timed as the median of its repeats, with the MACs each reports.
GPT-2 is DIR/gpt2.onnx (bench/bench.py's make_model: random weights, nothing
downloaded). Writes DIR/wheel_peers.md.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402
from python_api import wall  # noqa: E402  (process start to exit)

PEERS = ["torchinfo==1.8.0", "onnx-tool==1.0.1", "onnx==1.19.1", "numpy==1.26.4", "transformers==4.36.2",
         "tqdm"]

IN_PROCESS = r"""
import contextlib, io, json, statistics, sys, time
model_path, runs = sys.argv[1], int(sys.argv[2])
import numpy, torch, torchinfo, onnx_tool, transformers, onnxcost
torch.manual_seed(0)
module = transformers.GPT2LMHeadModel(transformers.GPT2Config()).eval()
ids = torch.zeros(1, 128, dtype=torch.long)

def timed(fn, n):
    fn()  # warm-up
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); r = fn(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts), r

out = {}
t = timed(lambda: torchinfo.summary(module, input_data=ids, verbose=0), runs)
out["torchinfo"] = {"median_s": t[0], "min_s": t[1], "macs": t[2].total_mult_adds, "params": t[2].total_params}

def ot():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        onnx_tool.model_profile(model_path, dynamic_shapes={"input_ids": numpy.zeros((1, 128), dtype=numpy.int64)})
    return buf.getvalue()
t = timed(ot, max(1, runs // 3))
total = [ln for ln in t[2].splitlines() if ln.startswith("Total")]
out["onnx-tool"] = {"median_s": t[0], "min_s": t[1], "total_line": " ".join(total[-1].split()) if total else ""}
t = timed(lambda: onnxcost.analyze(model_path, dims={"batch": 1, "sequence": 128}), runs * 4)
out["onnxcost.analyze"] = {"median_s": t[0], "min_s": t[1], "macs": t[2].macs, "params": t[2].params}
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t = timed(lambda: onnxcost.summary(module, input_data=ids, verbose=0), max(1, runs // 3))
out["onnxcost.summary"] = {"median_s": t[0], "min_s": t[1], "macs": t[2].macs, "params": t[2].torch_params}
out["versions"] = {"torch": torch.__version__, "torchinfo": torchinfo.__version__ if hasattr(torchinfo, "__version__") else "?",
                   "transformers": transformers.__version__, "onnxcost": onnxcost.__version__,
                   "python": sys.version.split()[0]}
print(json.dumps(out))
"""


def log(msg):
    print("[wheel_peers %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=bench.OUT)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    py = sys.executable
    tmp = tempfile.mkdtemp(prefix="wheel_peers-")
    env = dict(os.environ, PATH=os.path.dirname(py) + os.pathsep + os.environ["PATH"])

    # 1. the wheel, repaired
    log("pip wheel + auditwheel repair")
    t0 = time.perf_counter()
    subprocess.run([py, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", tmp + "/raw", ROOT],
                   check=True, stdout=subprocess.DEVNULL)
    t_build = time.perf_counter() - t0
    subprocess.run([py, "-m", "auditwheel", "repair", "-w", tmp + "/wheel", *glob.glob(tmp + "/raw/*.whl")],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    whl = glob.glob(tmp + "/wheel/*.whl")[0]
    size = os.path.getsize(whl)
    show = subprocess.run([py, "-m", "auditwheel", "show", whl], capture_output=True, text=True).stdout
    tag = " ".join(show.split()).split('platform tag: "')[1].split('"')[0]

    # 2. install time into a fresh venv (venv made first, untimed)
    installs = []
    for i in range(max(3, args.runs // 3)):
        venv = os.path.join(tmp, "v%d" % i)
        subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
        installs.append(wall([venv + "/bin/python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              "--no-index", whl]))
    vpy = os.path.join(tmp, "v0", "bin", "python")

    # 3. import time, interleaved process runs
    imp, base = [], []
    wall([vpy, "-c", "import onnxcost"])
    for _ in range(args.runs):
        imp.append(wall([vpy, "-c", "import onnxcost"]))
        base.append(wall([vpy, "-c", "pass"]))

    # 4. the peers, in one process
    peers = os.path.join(out, "peers-venv")
    ppy = os.path.join(peers, "bin", "python")
    if not os.path.exists(ppy):
        log("making %s (%s)" % (peers, " ".join(PEERS)))
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", peers], check=True)
        subprocess.run([ppy, "-m", "pip", "install", "-q", "--disable-pip-version-check", *PEERS], check=True)
    subprocess.run([ppy, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--force-reinstall", "--no-deps", whl], check=True)
    bench.OUT = out
    model = os.path.join(out, "gpt2.onnx")
    bench.make_model("gpt2", "gpt2.onnx", ("gpt2",), py)
    bench.warm(model)
    log("peers on %s" % model)
    res = json.loads(subprocess.run([ppy, "-c", IN_PROCESS, model, str(args.runs)], check=True,
                                    capture_output=True, text=True).stdout)
    shutil.rmtree(tmp, ignore_errors=True)

    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    oc = res["onnxcost.analyze"]["median_s"]
    ms = lambda s: "%.1f ms" % (s * 1e3) if s < 1 else "%.2f s" % s
    L = ["# The onnxcost wheel, and GPT-2 small from Python beside torchinfo and onnx-tool (%s)"
         % time.strftime("%Y-%m-%d"), "",
         "| measurement | value | note |", "|---|---:|---|",
         "| wheel (`pip wheel` + `auditwheel repair`) | %s bytes (%.0f KiB) | %s, built in %.1f s |"
         % (format(size, ","), size / 1024, tag, t_build),
         "| install from the local wheel into a fresh venv | %s | median of %d (min %s) |"
         % (ms(statistics.median(installs)), len(installs), ms(min(installs))),
         "| `import onnxcost` (process minus `python -c pass`) | %s | medians of %d runs each |"
         % (ms(statistics.median(imp) - statistics.median(base)), args.runs), "",
         "GPT-2 small, batch 1, 128 tokens, in one process (median of the repeats after a warm-up):", "",
         "| tool | median | min | vs onnxcost.analyze | what it reports |", "|---|---:|---:|---:|---|"]
    for name, what in (("onnxcost.analyze", "MACs %s, params %s"), ("onnxcost.summary", "MACs %s, params %s (module)"),
                       ("torchinfo", "mult-adds %s, params %s"), ("onnx-tool", "%s")):
        r = res[name]
        rep = what % (r["total_line"],) if name == "onnx-tool" else what % (format(r["macs"], ","), format(r["params"], ","))
        L.append("| %s | %s | %s | %.0fx | %s |" % (name, ms(r["median_s"]), ms(r["min_s"]), r["median_s"] / oc, rep))
    v = res["versions"]
    L += ["", "Machine: %s CPUs, %s; Python %s, torch %s, transformers %s, onnxcost %s; %s."
          % (os.cpu_count(), cpu, v["python"], v["torch"], v["transformers"], v["onnxcost"], ", ".join(PEERS[:2])), ""]
    md = "\n".join(L)
    with open(os.path.join(out, "wheel_peers.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
