#!/usr/bin/env python3
"""Issue #8's benchmark: onnxcost against onnx-tool and onnx.load + infer_shapes on
the same files in the same run, plus a 12-point sweep and a 4-model compare, and
the performance goals. Run it through bench/run.sh (which makes bench/.venv).

usage: python3 bench/bench.py --build BUILD_DIR --py bench/.venv/bin/python
                              [--quick] [--timeout S] [--runs N] [--py-runs N]
                              [--only NAME,NAME...]

Writes bench/out/results.json and bench/out/results.md; generated models live
in bench/out/ (git-ignored) and are reused when present.

Wall time: median over runs of process start to exit (stdout to /dev/null),
measured around `/usr/bin/time -f %M`, so it includes starting /usr/bin/time
(< 1 ms). Peak RSS: the largest `%M` over the runs. The page cache is warmed by
reading every file (and external data file) once before measuring.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")

LLM_DIMS = ["--dim", "batch=1", "--dim", "sequence=128"]
SYN_DIMS = ["--dim", "batch=1"]
IMG = ["input=1x3x224x224:float32"]
SYN = ["x=1x16x4:float32"]
SWEEP_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]  # 12 points

# name, path under bench/out, onnxcost binding args, python tool input shapes, how it is made
MODELS = [
    ("gpt2", "gpt2.onnx", LLM_DIMS, ["input_ids=1x128:int64"], ("gpt2",)),
    ("gpt2 (external data)", "gpt2_ext/gpt2.onnx", LLM_DIMS, ["input_ids=1x128:int64"], ("external",)),
    ("vgg16", "vgg16.onnx", [], IMG, ("torchvision", "vgg16")),
    ("resnet50", "resnet50.onnx", [], IMG, ("torchvision", "resnet50")),
    ("distilbert", "distilbert.onnx", LLM_DIMS, ["input_ids=1x128:int64", "attention_mask=1x128:int64"],
     ("distilbert",)),
    ("synthetic 10k", "synth_10k.onnx", SYN_DIMS, SYN, ("synthetic", 10_000)),
    ("synthetic 100k", "synth_100k.onnx", SYN_DIMS, SYN, ("synthetic", 100_000)),
    ("synthetic 1M", "synth_1m.onnx", SYN_DIMS, SYN, ("synthetic", 1_000_000)),
]
COMPARE = ["gpt2", "distilbert", "resnet50", "vgg16"]

STAGES = []  # (stage, seconds)


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


class Stage:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.perf_counter()
        log("stage: " + self.name)
        return self

    def __exit__(self, *exc):
        dt = time.perf_counter() - self.t0
        STAGES.append((self.name, round(dt, 1)))
        log("stage done: %s (%.1f s)" % (self.name, dt))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def export_python():
    venv = os.path.join(ROOT, ".venv", "bin", "python")
    return venv if os.path.exists(venv) else "/usr/bin/python3"


def make_model(name, rel, how, py):
    path = os.path.join(OUT, rel)
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with Stage("make " + name):
        kind = how[0]
        if kind in ("gpt2", "distilbert"):
            sh([export_python(), os.path.join(ROOT, "tests", "oracle", "transformers.py"), kind, tmp],
               stderr=subprocess.DEVNULL)
        elif kind == "torchvision":
            sh([export_python(), os.path.join(HERE, "export_torchvision.py"), how[1], tmp])
        elif kind == "synthetic":
            sh([py, os.path.join(HERE, "gen_synthetic.py"), str(how[1]), tmp]
               + (["--check"] if how[1] <= 10_000 else []))
        elif kind == "external":
            make_model("gpt2", "gpt2.onnx", ("gpt2",), py)
            sh([py, os.path.join(HERE, "pytools.py"), "external", os.path.join(OUT, "gpt2.onnx"), path])
            return
        os.replace(tmp, path)


def file_bytes(path):
    size = os.path.getsize(path)
    data = path + ".data"
    ext = os.path.getsize(data) if os.path.exists(data) else 0
    return size, ext


def warm(path):
    for p in (path, path + ".data"):
        if os.path.exists(p):
            with open(p, "rb") as f:
                while f.read(1 << 22):
                    pass


def run_once(cmd, timeout):
    """-> (wall_s, rss_kib, rc, timed_out, stderr_tail, cpu_s)

    cpu_s is user + system time of /usr/bin/time and the tool (wait4's rusage, microsecond
    resolution): unlike wall time it does not grow while the tool waits for a busy CPU."""
    with tempfile.NamedTemporaryFile("r", suffix=".time", dir=OUT) as tf, \
            tempfile.TemporaryFile("w+", dir=OUT) as err:
        full = ["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd
        fired = []

        def kill():
            fired.append(1)
            os.killpg(p.pid, signal.SIGKILL)  # the group this Popen started, nothing else

        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except BaseException:  # Ctrl-C / SIGTERM: do not leave the tool running
            timer.cancel()
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        timed_out = bool(fired)
        rc = None if timed_out else p.returncode
        err.seek(0)
        tail = err.read()[-600:]
        txt = tf.read().strip().splitlines()
        rss = int(txt[-1]) if txt and txt[-1].isdigit() else None
    return wall, rss, rc, timed_out, tail, ru.ru_utime + ru.ru_stime


def measure(label, cmd, runs, timeout, slow_after=None):
    """Median wall (ms) and peak RSS (MiB) over runs; stops after one run when a run
    takes longer than slow_after seconds or times out."""
    walls, cpus, rss, res = [], [], 0, {"cmd": cmd}
    for i in range(runs):
        wall, r, rc, to, tail, cpu = run_once(cmd, timeout)
        if to:
            res.update(timed_out=True, timeout_s=timeout, runs=len(walls))
            log("  %s: timed out after %d s" % (label, timeout))
            return res
        if rc != 0:
            res.update(error="exit %s: %s" % (rc, tail.strip().splitlines()[-1] if tail.strip() else ""),
                       runs=len(walls))
            log("  %s: FAILED %s" % (label, res["error"]))
            return res
        walls.append(wall)
        cpus.append(cpu)
        rss = max(rss, r or 0)
        if slow_after is not None and wall > slow_after:
            break
    res.update(median_ms=round(statistics.median(walls) * 1000, 2), min_ms=round(min(walls) * 1000, 2),
               max_ms=round(max(walls) * 1000, 2), cpu_median_ms=round(statistics.median(cpus) * 1000, 2),
               runs=len(walls), peak_rss_mib=round(rss / 1024, 1))
    log("  %s: %.1f ms median of %d (CPU %.1f ms), %.1f MiB" % (label, res["median_ms"], len(walls),
                                                              res["cpu_median_ms"], res["peak_rss_mib"]))
    return res


def interleaved(pairs, runs, timeout):
    """pairs: [(label, cmd)]; runs them round-robin so drift hits all alike."""
    acc = {label: ([], [], 0) for label, _ in pairs}
    for _ in range(runs):
        for label, cmd in pairs:
            wall, r, rc, to, tail, cpu = run_once(cmd, timeout)
            if rc != 0 or to:
                raise RuntimeError("%s failed (rc %s, timed out %s): %s" % (label, rc, to, tail))
            w, c, m = acc[label]
            acc[label] = (w + [wall], c + [cpu], max(m, r or 0))
    out = {}
    for label, cmd in pairs:
        w, c, m = acc[label]
        out[label] = {"cmd": cmd, "median_ms": round(statistics.median(w) * 1000, 2), "runs": len(w),
                      "cpu_median_ms": round(statistics.median(c) * 1000, 2), "peak_rss_mib": round(m / 1024, 1)}
        log("  %s: %.1f ms median of %d (CPU %.1f ms), %.1f MiB" % (label, out[label]["median_ms"], len(w),
                                                                  out[label]["cpu_median_ms"], m / 1024))
    return out


def onnxcost_check(onnxcost, path, args):
    """One validation run: exit 0 and the coverage line -> (nodes, concrete)."""
    p = subprocess.run([onnxcost, path] + args, capture_output=True, text=True)
    m = re.search(r"Shapes: (\d+)/(\d+) nodes", p.stdout)
    return {"rc": p.returncode, "stderr": p.stderr.strip()[-400:],
            "nodes": int(m.group(2)) if m else None, "concrete": int(m.group(1)) if m else None}


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 2**20)
    return {"nproc": os.cpu_count(), "cpu": cpu, "mem": mem, "kernel": platform.release(),
            "loadavg_at_start": " ".join(open("/proc/loadavg").read().split()[:3])}


def versions(onnxcost, build, py):
    v = {"onnxcost": subprocess.run([onnxcost, "--version"], capture_output=True, text=True).stdout.strip()}
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        v["git"] = head + ("-dirty" if dirty else "")
    except OSError:
        pass
    cache = os.path.join(build, "CMakeCache.txt")
    if os.path.exists(cache):
        txt = open(cache).read()
        m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", txt, re.M)
        v["build_type"] = (m.group(1) if m else "") or "(none)"
        m = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", txt, re.M)
        if m:
            cc = subprocess.run([m.group(1), "--version"], capture_output=True, text=True).stdout
            v["cc"] = cc.splitlines()[0] if cc else m.group(1)
    v.update(json.loads(subprocess.run([py, os.path.join(HERE, "pytools.py"), "versions"], capture_output=True,
                                       text=True, check=True).stdout))
    return v


def fmt_ms(r):
    if r is None:
        return "–"
    if r.get("skipped"):
        return "skipped"
    if r.get("timed_out"):
        return ">%d s (timed out)" % r["timeout_s"]
    if r.get("error"):
        return "error"
    ms = r["median_ms"]
    return "{:,.1f}".format(ms) if ms < 10_000 else "{:,.0f}".format(ms)


def fmt_mib(r):
    if r is None or "peak_rss_mib" not in r:
        return "–"
    return "{:,.1f}".format(r["peak_rss_mib"])


def ratio(a, b, key):
    if not a or not b or key not in a or key not in b or not b[key]:
        return None
    return a[key] / b[key]


def fmt_ratio(r, base):
    if r is None or base is None:
        return "–"
    if r.get("timed_out") and "median_ms" in base:
        return ">%s×" % "{:,.0f}".format(r["timeout_s"] * 1000 / base["median_ms"])
    w, m = ratio(r, base, "median_ms"), ratio(r, base, "peak_rss_mib")
    if w is None:
        return "–"
    return "%s× / %s×" % ("{:,.0f}".format(w) if w >= 10 else "%.1f" % w,
                          "{:,.0f}".format(m) if m >= 10 else "%.1f" % m)


def size_str(size, ext):
    s = "%.1f MB" % (size / 1e6) if size >= 1e6 else "%.0f KB" % (size / 1e3)
    if ext:
        s += " + %.1f MB data" % (ext / 1e6)
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--py", default=os.path.join(HERE, ".venv", "bin", "python"))
    ap.add_argument("--quick", action="store_true", help="5 onnxcost runs, 1 Python run, 60 s timeout, "
                                                         "no onnx-tool on the 1M-node graph")
    ap.add_argument("--timeout", type=int, help="per Python-tool run, seconds (default 300, --quick 60)")
    ap.add_argument("--runs", type=int, help="onnxcost runs (default 11, --quick 5)")
    ap.add_argument("--py-runs", type=int, help="Python tool runs (default 3, --quick 1)")
    ap.add_argument("--only", help="comma-separated model names (default: all)")
    a = ap.parse_args()
    runs = a.runs or (5 if a.quick else 11)
    py_runs = a.py_runs or (1 if a.quick else 3)
    timeout = a.timeout or (60 if a.quick else 300)
    built = os.path.join(os.path.abspath(a.build), "onnxcost")
    if not os.access(built, os.X_OK):
        sys.exit("bench: %s not found; build first (cmake -S . -B build && cmake --build build -j2)" % built)
    os.makedirs(OUT, exist_ok=True)
    # Measure a snapshot: a rebuild of BUILD_DIR during the run must not mix two binaries.
    onnxcost = os.path.join(OUT, "onnxcost.bench")
    shutil.copy2(built, onnxcost)
    with open(onnxcost, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    t_start = time.perf_counter()
    models = [m for m in MODELS if not a.only or m[0] in a.only.split(",")]

    info = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
            "versions": dict(versions(onnxcost, a.build, a.py), onnxcost_binary=built,
                             onnxcost_sha256=digest,
                             onnxcost_mtime=datetime.datetime.fromtimestamp(
                                 os.path.getmtime(built)).isoformat(timespec="seconds")),
            "protocol": {"onnxcost_runs": runs, "python_runs": py_runs, "python_one_run_if_over_s": 60,
                         "timeout_s": timeout, "quick": a.quick,
                         "wall": "median of process start to exit around /usr/bin/time, warm page cache",
                         "rss": "max of /usr/bin/time %M over the runs"}}
    log("machine: %(nproc)s CPUs, %(cpu)s, %(mem)s, load %(loadavg_at_start)s" % info["machine"])
    log("versions: " + json.dumps(info["versions"]))

    with Stage("models (export/generate missing files)"):
        for name, rel, _, _, how in models:
            make_model(name, rel, how, a.py)
    with Stage("warm page cache"):
        for _, rel, _, _, _ in models:
            warm(os.path.join(OUT, rel))
        # first import of the Python packages compiles/caches them; keep it out of the runs
        subprocess.run([a.py, "-c", "import onnx, onnx_tool, numpy"], check=True)

    # All onnxcost measurements first, then the Python tools: a Python run frees GiBs when it
    # exits, and the reclaim must not land in the next ~10 ms onnxcost run.
    rows = []
    with Stage("onnxcost, all files"):
        for name, rel, dims, shapes, how in models:
            path = os.path.join(OUT, rel)
            size, ext = file_bytes(path)
            row = {"model": name, "file": os.path.relpath(path, ROOT), "bytes": size, "external_bytes": ext,
                   "onnxcost_args": dims, "python_inputs": shapes}
            log(" " + name)
            chk = onnxcost_check(onnxcost, path, dims)
            row["nodes"], row["concrete"], row["onnxcost_rc"] = chk["nodes"], chk["concrete"], chk["rc"]
            if chk["rc"] != 0 or chk["nodes"] is None or chk["concrete"] != chk["nodes"]:
                row["onnxcost_problem"] = "rc %d, coverage %s/%s, stderr: %s" % (
                    chk["rc"], chk["concrete"], chk["nodes"], chk["stderr"])
                log("  onnxcost PROBLEM on %s: %s" % (name, row["onnxcost_problem"]))
            row["onnxcost"] = measure("onnxcost", [onnxcost, path] + dims, runs, 600)
            rows.append(row)

    extra = {}
    by = {r["model"]: r for r in rows}
    if "gpt2" in by:
        g = os.path.join(OUT, "gpt2.onnx")
        sweep = [onnxcost, "sweep", g, "--dim", "batch=" + ",".join(map(str, SWEEP_BATCHES)),
                 "--dim", "sequence=128"]
        with Stage("sweep (12 points) vs single, gpt2"):
            extra["sweep"] = interleaved([("single", [onnxcost, g] + LLM_DIMS), ("sweep", sweep)], runs, 600)
        # `onnxcost gpt2.onnx` as typed: batch and sequence unbound, so the report is
        # exact formulas fitted over probe analyses (README "symbolic dims")
        with Stage("symbolic (unbound dims) vs bound, gpt2"):
            extra["symbolic"] = interleaved([("bound", [onnxcost, g] + LLM_DIMS), ("symbolic", [onnxcost, g])],
                                            runs, 600)
    if "gpt2" in by and "gpt2 (external data)" in by:
        # the 10 % goal compares two ~10 ms figures: take them round-robin, not minutes apart
        with Stage("gpt2 vs its external-data copy, interleaved"):
            extra["external"] = interleaved([("gpt2", by["gpt2"]["onnxcost"]["cmd"]),
                                             ("gpt2 (external data)", by["gpt2 (external data)"]["onnxcost"]["cmd"])],
                                            runs, 600)
    if all(m in by for m in COMPARE):
        paths = [os.path.join(OUT, dict((m[0], m[1]) for m in MODELS)[n]) for n in COMPARE]
        pairs = [("compare", [onnxcost, "compare"] + paths + LLM_DIMS)]
        for n, p in zip(COMPARE, paths):
            pairs.append(("single " + n, [onnxcost, p] + by[n]["onnxcost_args"]))
        with Stage("compare (4 models) vs singles"):
            extra["compare"] = interleaved(pairs, runs, 600)

    for row, (name, rel, dims, shapes, how) in zip(rows, models):
        path = os.path.join(OUT, rel)
        with Stage("python tools, " + name):
            if a.quick and how == ("synthetic", 1_000_000):
                row["onnx_tool"] = {"skipped": "--quick"}
            else:
                row["onnx_tool"] = measure("onnx-tool", [a.py, os.path.join(HERE, "pytools.py"), "onnx-tool", path]
                                           + shapes, py_runs, timeout, slow_after=60)
            row["onnx_infer"] = measure("onnx load+infer", [a.py, os.path.join(HERE, "pytools.py"), "onnx-infer",
                                                             path] + shapes, py_runs, timeout, slow_after=60)

    goals = check_goals(by, extra)
    STAGES.append(("total", round(time.perf_counter() - t_start, 1)))
    info["machine"]["loadavg_at_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
    info.update(rows=rows, extra=extra, goals=goals, stages=STAGES)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(info, f, indent=1)
    md = markdown(info)
    with open(os.path.join(OUT, "results.md"), "w") as f:
        f.write(md)
    print(md)
    log("wrote bench/out/results.json and bench/out/results.md")


def check_goals(by, extra):
    goals = []

    def add(goal, measured, ok):
        goals.append({"goal": goal, "measured": measured, "met": ok})

    g = by.get("gpt2", {}).get("onnxcost", {})
    if "median_ms" in g:
        add("GPT-2 end to end <= 25 ms", "%.1f ms (CPU %.1f ms)" % (g["median_ms"], g["cpu_median_ms"]),
            g["median_ms"] <= 25)
        add("GPT-2 peak RSS <= 32 MiB", "%.1f MiB" % g["peak_rss_mib"], g["peak_rss_mib"] <= 32)
        e = by.get("gpt2 (external data)", {}).get("onnxcost", {})
        if "external" in extra:
            g, e = extra["external"]["gpt2"], extra["external"]["gpt2 (external data)"]
        if "median_ms" in e:
            w, m = e["median_ms"] / g["median_ms"], e["peak_rss_mib"] / g["peak_rss_mib"]
            add("GPT-2 external data within 10 % of GPT-2 (wall, RSS; interleaved runs)",
                "%.1f ms vs %.1f ms (%+.0f %%), %.1f MiB vs %.1f MiB (%+.0f %%)" % (
                    e["median_ms"], g["median_ms"], (w - 1) * 100, e["peak_rss_mib"], g["peak_rss_mib"],
                    (m - 1) * 100), w <= 1.10 and m <= 1.10)
    s = by.get("synthetic 1M", {}).get("onnxcost", {})
    if "median_ms" in s:
        add("1M-node synthetic <= 2 s", "%.2f s (CPU %.2f s), %.1f MiB" % (
            s["median_ms"] / 1000, s["cpu_median_ms"] / 1000, s["peak_rss_mib"]),
            s["median_ms"] <= 2000)
    per = []
    for n, k in (("synthetic 10k", 10_000), ("synthetic 100k", 100_000), ("synthetic 1M", 1_000_000)):
        r = by.get(n, {})
        if "median_ms" in r.get("onnxcost", {}):
            per.append((n.split()[1], r["onnxcost"]["median_ms"] * 1000 / (r.get("nodes") or k),
                        r["onnxcost"]["cpu_median_ms"] * 1000 / (r.get("nodes") or k),
                        r["onnxcost"]["peak_rss_mib"] * 1024 / (r.get("nodes") or k)))
    if len(per) >= 2:
        spread = max(p[1] for p in per) / min(p[1] for p in per)
        marg = ""
        if len(per) == 3:  # marginal cost per added node, free of the fixed process start
            t = [by[n]["onnxcost"]["median_ms"] * 1000 for n in ("synthetic 10k", "synthetic 100k", "synthetic 1M")]
            marg = "; marginal 10k->100k %.2f, 100k->1M %.2f µs/node" % ((t[1] - t[0]) / 90_000,
                                                                          (t[2] - t[1]) / 900_000)
        add("time per node flat 10k -> 1M (max/min <= 1.25)",
            ", ".join("%s %.2f µs/node (CPU %.2f, %.2f KiB/node)" % p for p in per) + "; max/min %.2f" % spread + marg,
            spread <= 1.25)
    sw = extra.get("sweep")
    if sw:
        r = sw["sweep"]["median_ms"] / sw["single"]["median_ms"]
        add("12-point sweep < 3x a single analysis", "%.1f ms vs %.1f ms = %.2fx (CPU %.2fx)" % (
            sw["sweep"]["median_ms"], sw["single"]["median_ms"], r,
            sw["sweep"]["cpu_median_ms"] / sw["single"]["cpu_median_ms"]), r < 3)
    return goals


def markdown(info):
    m, v, p = info["machine"], info["versions"], info["protocol"]
    L = []
    L.append("Measured %s on %s CPUs (%s), %s RAM, kernel %s, load average %s at start, %s at end%s." % (
        info["date"][:10], m["nproc"], m["cpu"], m["mem"], m["kernel"], m["loadavg_at_start"], m["loadavg_at_end"],
        " — `--quick` run" if p["quick"] else ""))
    L.append("")
    L.append("onnxcost %s (git %s, binary built %s, sha256 %s…, build %s, %s); Python %s, onnx %s, onnx-tool %s, numpy %s, protobuf %s." % (
        v.get("onnxcost", "?").replace("onnxcost ", ""), v.get("git", "?"), v.get("onnxcost_mtime", "?"),
        v.get("onnxcost_sha256", "?"), v.get("build_type", "?"),
        v.get("cc", "?"), v.get("python"), v.get("onnx"), v.get("onnx-tool"), v.get("numpy"), v.get("protobuf")))
    L.append("Wall: median over %d runs (onnxcost) and %d (Python tools; 1 when a run exceeds 60 s), process "
             "start to exit, warm page cache; CPU: median user+system time (wait4), which does not grow while "
             "the process waits for a busy core; peak RSS: `/usr/bin/time -f %%M`. Python tools time out after "
             "%d s. Ratios are tool / onnxcost (wall / RSS)." % (p["onnxcost_runs"], p["python_runs"], p["timeout_s"]))
    L.append("")
    L.append("| model | file size | nodes | onnxcost ms | onnxcost CPU ms | onnxcost MiB | onnx-tool ms | onnx-tool MiB | onnx-tool ratio "
             "| onnx load+infer ms | load+infer MiB | load+infer ratio |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in info["rows"]:
        oc = r["onnxcost"]
        nodes = "{:,}".format(r["nodes"]) if r.get("nodes") else "?"
        if r.get("onnxcost_problem"):
            nodes += " (!)"
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], size_str(r["bytes"], r["external_bytes"]), nodes, fmt_ms(oc),
            "{:,.1f}".format(oc["cpu_median_ms"]) if "cpu_median_ms" in oc else "–", fmt_mib(oc),
            fmt_ms(r["onnx_tool"]), fmt_mib(r["onnx_tool"]), fmt_ratio(r["onnx_tool"], oc),
            fmt_ms(r["onnx_infer"]), fmt_mib(r["onnx_infer"]), fmt_ratio(r["onnx_infer"], oc)))
    problems = [r for r in info["rows"] if r.get("onnxcost_problem") or r["onnx_tool"].get("error")
                or r["onnx_infer"].get("error")]
    if problems:
        L.append("")
        for r in problems:
            for k in ("onnxcost_problem",):
                if r.get(k):
                    L.append("* onnxcost on %s: %s" % (r["model"], r[k]))
            for k, lab in (("onnx_tool", "onnx-tool"), ("onnx_infer", "onnx load+infer")):
                if r[k].get("error"):
                    L.append("* %s on %s: %s" % (lab, r["model"], r[k]["error"]))
    ex = info["extra"]
    if ex:
        L.append("")
        L.append("| onnxcost command | median ms (CPU ms) | peak RSS MiB | single analysis ms (CPU ms) | ratio wall (CPU) |")
        L.append("|---|---|---|---|---|")
        def vs_single(label, s, o):  # one command against the bound single analysis of gpt2
            L.append("| %s | %.1f (%.1f) | %.1f | %.1f (%.1f) (gpt2, batch 1, sequence 128) | %.2f× (%.2f×) |" % (
                label, s["median_ms"], s["cpu_median_ms"], s["peak_rss_mib"], o["median_ms"], o["cpu_median_ms"],
                s["median_ms"] / o["median_ms"], s["cpu_median_ms"] / o["cpu_median_ms"]))
        if "sweep" in ex:
            vs_single("`sweep gpt2.onnx --dim batch=1,2,4,…,2048 --dim sequence=128` (12 points)",
                      ex["sweep"]["sweep"], ex["sweep"]["single"])
        if "symbolic" in ex:
            vs_single("`gpt2.onnx` with batch and sequence unbound (symbolic formulas)",
                      ex["symbolic"]["symbolic"], ex["symbolic"]["bound"])
        if "compare" in ex:
            c = ex["compare"]
            singles = [c["single " + n]["median_ms"] for n in COMPARE]
            cpu = sum(c["single " + n]["cpu_median_ms"] for n in COMPARE)
            L.append("| `compare %s` | %.1f (%.1f) | %.1f | %s = %.1f (%.1f) (sum of singles) | %.2f× (%.2f×) |" % (
                " ".join(COMPARE), c["compare"]["median_ms"], c["compare"]["cpu_median_ms"],
                c["compare"]["peak_rss_mib"], " + ".join("%.1f" % x for x in singles), sum(singles), cpu,
                c["compare"]["median_ms"] / sum(singles), c["compare"]["cpu_median_ms"] / cpu))
    if info["goals"]:
        L.append("")
        L.append("| goal | measured | met |")
        L.append("|---|---|---|")
        for g in info["goals"]:
            L.append("| %s | %s | %s |" % (g["goal"], g["measured"], "yes" if g["met"] else "**no**"))
    L.append("")
    L.append("Stages (s): " + ", ".join("%s %.1f" % s for s in info["stages"]) + ".")
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
