"""Runs an ONNX model in ONNX Runtime with its profiler on: what `onnxcost
measure` drives (docs/MEASURED.md).

It needs only onnxruntime and numpy; it does not import the onnxcost
extension, so the C command can run it with any Python that has ONNX
Runtime:

    python ort_measure.py MODEL.onnx OUT_DIR --input NAME=D0,D1,... [...]
        [--ep cpu] [--threads N] [--reps auto|N] [--max-seconds S] [--tolerance F]
        [--warmup N] [--opt-level all] [--temporary]

The measured runs come in passes of a few runs with a short pause between
them, so that another process's burst lands in some passes, not in all.
With --reps auto (the default) passes go on until the median of the runs
so far is stable: at least 4 passes and 10 runs, and the medians of the
first and second halves of the passes within --tolerance (0.02) of the
median of all; or, on a busy machine, until the quiet runs' median is
(quiet_stable: the runs another process's load left alone, whose figures
onnxcost reports); or until --max-seconds (20) of measuring; the record
says which. With --reps N there are N runs, in passes all the same.

It writes, in OUT_DIR:
  <stem>.ort.onnx       the graph ONNX Runtime ran, after its optimizations
  <stem>.ort.data       its weights (external data: the graph stays small,
                        and models over 2 GiB can be saved; onnxcost never
                        reads them)
  <stem>.profile.json   the profiler's trace, without the warm-up runs'
                        events, and with one event of category "onnxcost"
                        recording how it was measured (the runtime's version,
                        the providers, threads, optimization level, runs,
                        inputs, CPU)

Inputs are random at the given shapes: floats from a normal distribution,
integers 0 (indices valid in any table), except inputs named like a mask
(1). Exit codes: 0, or 2 with one line on stderr (ONNX Runtime missing, a
provider not available, a model ONNX Runtime refuses).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys

LEVELS = ("none", "basic", "extended", "all")
PROVIDERS = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "migraphx": "MIGraphXExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "dml": "DmlExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "xnnpack": "XnnpackExecutionProvider",
    "qnn": "QNNExecutionProvider",
}
NUMPY_TYPES = {
    "tensor(float)": "float32",
    "tensor(float16)": "float16",
    "tensor(double)": "float64",
    "tensor(bfloat16)": None,
    "tensor(int64)": "int64",
    "tensor(int32)": "int32",
    "tensor(int16)": "int16",
    "tensor(int8)": "int8",
    "tensor(uint8)": "uint8",
    "tensor(uint16)": "uint16",
    "tensor(uint32)": "uint32",
    "tensor(uint64)": "uint64",
    "tensor(bool)": "bool",
}


class MeasureError(Exception):
    """One line for the user (exit 2)."""


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _provider(ep: str, available: list[str]) -> str:
    name = PROVIDERS.get(ep.lower(), ep)
    if name not in available:
        raise MeasureError(f"execution provider '{ep}' ({name}) is not in this ONNX Runtime "
                           f"(it has {', '.join(available)}); onnxruntime-gpu brings CUDA and TensorRT")
    return name


def _inputs(sess, shapes: dict[str, list[int]], np):
    feeds = {}
    rng = np.random.default_rng(0)
    for i in sess.get_inputs():
        if i.name not in shapes:
            raise MeasureError(f"input '{i.name}' has no shape (give it with --input NAME=D0,D1,...)")
        shape = shapes[i.name]
        t = NUMPY_TYPES.get(i.type)
        if t is None:
            raise MeasureError(f"input '{i.name}' is a {i.type}, which cannot be filled with random data")
        if t.startswith("float"):
            feeds[i.name] = rng.standard_normal(shape).astype(t)
        elif t == "bool" or "mask" in i.name.lower():
            feeds[i.name] = np.ones(shape, dtype=t)
        else:
            feeds[i.name] = np.zeros(shape, dtype=t)
    return feeds


def _remove_profiles(out_dir: str, stem: str) -> None:
    """The profile a failed session leaves behind (ONNX Runtime opens it when
    the session is made)."""
    for f in os.listdir(out_dir):
        if f.startswith(stem + ".ort_profile") and f.endswith(".json"):
            try:
                os.remove(os.path.join(out_dir, f))
            except OSError:
                pass


def _drop_warmup(events: list, warmup: int) -> tuple[list, int]:
    """The events less those of the first `warmup` model_run events' spans."""
    runs = sorted((e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"),
                  key=lambda e: e.get("ts", 0))
    spans = [(r["ts"], r["ts"] + r["dur"]) for r in runs[:warmup]]
    if not spans:
        return events, 0
    dropped = {id(r) for r in runs[:warmup]}
    kept = []
    for e in events:
        if id(e) in dropped:
            continue
        ts = e.get("ts")
        if e.get("cat") == "Node" and isinstance(ts, (int, float)) and any(a <= ts <= b for a, b in spans):
            continue
        kept.append(e)
    return kept, len(spans)


PASS_S = 0.2          # a pass lasts about this long (at least one run)
PAUSE_S = 0.02        # the pause between passes
MIN_PASSES, MIN_RUNS = 4, 10


def _median(x: list[float]) -> float:
    s = sorted(x)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def stable(passes: list[list[float]], tolerance: float) -> bool:
    """The median of all runs is known within tolerance: its 95 % confidence
    interval (from the order statistics: ranks n/2 -+ 1.96 sqrt(n) / 2) lies
    within tolerance of it, and it has not drifted (the runs of the first
    and of the second half of the passes each have a median within tolerance
    of it), and the passes agree (the middle half of their medians within
    2.5 tolerances). Another process's load that comes and goes spreads the
    runs, or whole passes, over two levels: then it is not stable."""
    runs = sorted(t for p in passes for t in p)
    n = len(runs)
    if len(passes) < MIN_PASSES or n < MIN_RUNS:
        return False
    if not _known(runs, tolerance):
        return False
    m = _median(runs)
    half = len(passes) // 2
    first = [t for p in passes[:half] for t in p]
    second = [t for p in passes[half:] for t in p]
    if not all(abs(_median(h) - m) <= tolerance * m for h in (first, second)):
        return False
    # the passes saw one machine: the middle half of their medians within
    # 2.5 tolerances of each other (a load that lasts longer than a pass
    # moves whole passes)
    pm = sorted(_median(p) for p in passes)
    q1, q3 = pm[len(pm) // 4], pm[(3 * len(pm)) // 4 - (1 if len(pm) % 4 == 0 else 0)]
    return q3 <= q1 * (1 + 2.5 * tolerance)


QUIET_BAND = 0.05     # views/measure.h OC_MEASURE_QUIET_BAND


def quiet(runs: list[float]) -> list[float]:
    """The quiet runs, as onnxcost picks them from the profile (views/measure.h):
    those within QUIET_BAND of the fastest eighth's slowest. Another
    process's load only adds time, so these are the runs it left alone."""
    if not runs:
        return []
    level = sorted(runs)[len(runs) // 8] * (1 + QUIET_BAND)
    return [t for t in runs if t <= level]


def _known(runs: list[float], tolerance: float) -> bool:
    """The median of runs within tolerance: its 95 % confidence interval, from
    the order statistics (ranks n/2 -+ 1.96 sqrt(n) / 2), inside it."""
    runs = sorted(runs)
    n = len(runs)
    m = _median(runs)
    w = 1.96 * n ** 0.5 / 2
    lo, hi = max(0, int(n / 2 - w)), min(n - 1, int(n / 2 + w + 0.999))
    return m > 0 and runs[lo] >= m * (1 - tolerance) and runs[hi] <= m * (1 + tolerance)


def quiet_stable(passes: list[list[float]], tolerance: float) -> bool:
    """On a busy machine, where every run's median never settles: the quiet
    runs' median is known within tolerance and has not drifted (the quiet
    runs of the first and of the second half of the passes each have a
    median within tolerance of it), over at least MIN_PASSES passes and
    2 x MIN_RUNS quiet runs. The figures onnxcost reports are theirs."""
    if len(passes) < MIN_PASSES:
        return False
    q = quiet([t for p in passes for t in p])
    if len(q) < 2 * MIN_RUNS or not _known(q, tolerance):
        return False
    m = _median(q)
    level = max(q)
    half = len(passes) // 2
    for h in (passes[:half], passes[half:]):
        hq = [t for p in h for t in p if t <= level]
        if not hq or abs(_median(hq) - m) > tolerance * m:
            return False
    return True


def _runs(sess, feeds, reps, warmup: int, max_seconds: float, tolerance: float, progress: bool) -> dict:
    """Warm-up runs, then passes of runs with a pause between them (see the
    module's doc); reps is an int or "auto". Returns the passes' wall times
    (s) and how it stopped."""
    import time
    for _ in range(warmup):
        sess.run(None, feeds)
    t = time.perf_counter()
    sess.run(None, feeds)  # one more, unrecorded in the passes, sizes them
    one = max(time.perf_counter() - t, 1e-6)
    fixed = reps != "auto"
    per_pass = max(1, min(50, int(PASS_S / one)))
    if fixed:  # N runs in about N / per_pass passes of equal size
        n_pass = max(1, min(reps, -(-reps // per_pass)))
        sizes = [reps // n_pass + (1 if i < reps % n_pass else 0) for i in range(n_pass)]
    passes, start, done = [], time.perf_counter(), 0
    while True:
        k = sizes[len(passes)] if fixed else per_pass
        times = []
        for _ in range(k):
            t = time.perf_counter()
            sess.run(None, feeds)
            times.append(time.perf_counter() - t)
            done += 1
            if progress:  # onnxcost relays it (a terminal line, or the Python binding's tqdm)
                if fixed:
                    sys.stderr.write(f"\rmeasure {done}/{reps}")
                else:  # tenths of a second toward the time limit (it stops sooner once stable)
                    sys.stderr.write(f"\rmeasure {int((time.perf_counter() - start) * 10)}/{int(max_seconds * 10)}")
                sys.stderr.flush()
        passes.append(times)
        elapsed = time.perf_counter() - start
        if fixed and len(passes) == len(sizes):
            why = "fixed"
            break
        if not fixed and stable(passes, tolerance):
            why = "stable"
            break
        if not fixed and quiet_stable(passes, tolerance):
            why = "quiet runs stable"
            break
        if not fixed and elapsed >= max_seconds:
            why = "time limit"
            break
        time.sleep(PAUSE_S)
    if progress:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    return {"passes": passes, "why": why, "elapsed_s": time.perf_counter() - start, "extra_runs": 1}


def measure(model: str, out_dir: str, shapes: dict[str, list[int]], ep: str = "cpu", threads: int = 0,
            reps="auto", warmup: int = 3, opt_level: str = "all", kept: bool = True,
            progress: bool = False, max_seconds: float = 20.0, tolerance: float = 0.02) -> dict:
    """Runs `model` warmup times, then in passes (reps: "auto" or a number of
    runs) under the profiler; returns the paths written and the run's record
    (the "onnxcost" event's args)."""
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        raise MeasureError(f"ONNX Runtime is not installed for {sys.executable} ({e.name} missing): "
                           "pip install onnxruntime (onnxruntime-gpu for CUDA), or run onnxcost measure "
                           "with --python PATH or ONNXCOST_PYTHON naming a Python that has it") from None
    if opt_level not in LEVELS:
        raise MeasureError(f"optimization level '{opt_level}' is not one of {', '.join(LEVELS)}")
    provider = _provider(ep, ort.get_available_providers())
    if not os.path.isfile(model):
        raise MeasureError("no such file")
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.basename(model)
    stem = stem[:-5] if stem.endswith(".onnx") else stem
    optimized = os.path.join(out_dir, stem + ".ort.onnx")
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(out_dir, stem + ".ort_profile")
    so.optimized_model_filepath = optimized
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name", stem + ".ort.data")
    so.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    so.graph_optimization_level = {
        "none": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[opt_level]
    if threads:
        so.intra_op_num_threads = threads
    so.log_severity_level = 3
    try:
        sess = ort.InferenceSession(model, so, providers=[provider])
        feeds = _inputs(sess, shapes, np)
        ran = _runs(sess, feeds, reps, warmup, max_seconds, tolerance, progress)
    except Exception as e:  # ONNX Runtime's own errors: one line
        _remove_profiles(out_dir, stem)
        if isinstance(e, MeasureError):
            raise
        msg = " ".join(str(e).split())
        raise MeasureError(f"ONNX Runtime cannot run it: {msg[:400]}") from None
    raw = sess.end_profiling()
    with open(raw, encoding="utf-8") as f:
        events = json.load(f)
    os.remove(raw)
    # the warm-up runs and the one that sized the passes are left out
    events, dropped = _drop_warmup(events, warmup + ran["extra_runs"])
    dropped = max(0, dropped - ran["extra_runs"])
    pass_ms = [_median(p) * 1e3 for p in ran["passes"]]
    record = {
        "runtime": "onnxruntime",
        "version": ort.__version__,
        "providers": sess.get_providers(),
        "intra_op_threads": threads,
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_model(),
        "opt_level": opt_level,
        "warmup_runs_dropped": dropped,
        "runs": sum(len(p) for p in ran["passes"]),
        "reps": reps,
        "passes": len(pass_ms),
        "pass_median_ms": pass_ms,
        "pause_s": PAUSE_S,
        "stopped": ran["why"],
        "tolerance": tolerance,
        "max_seconds": max_seconds,
        "measuring_s": ran["elapsed_s"],
        "model": model,
        "optimized_model": optimized,
        "kept": kept,
        "inputs": {i.name: {"type": i.type, "shape": shapes[i.name]} for i in sess.get_inputs()},
    }
    events.append({"cat": "onnxcost", "name": "measure_run", "ph": "i", "ts": 0, "pid": 0, "tid": 0,
                   "args": record})
    profile = os.path.join(out_dir, stem + ".profile.json")
    with open(profile, "w", encoding="utf-8") as f:
        json.dump(events, f)
    return {"optimized_model": optimized, "profile": profile, "run": record}


def _shape(text: str) -> tuple[str, list[int]]:
    name, sep, dims = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=D0,D1,...")
    try:
        shape = [int(d) for d in dims.split(",")] if dims else []
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': dims must be integers") from None
    if any(d < 0 for d in shape):
        raise argparse.ArgumentTypeError(f"'{text}': dims must be >= 0")
    return name, shape


def _reps(text: str):
    if text == "auto":
        return text
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not auto or a number of runs") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"'{text}': at least 1 run")
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ort_measure", description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("out_dir")
    ap.add_argument("--input", type=_shape, action="append", default=[], metavar="NAME=D0,D1,...")
    ap.add_argument("--ep", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--reps", type=_reps, default="auto")
    ap.add_argument("--max-seconds", type=float, default=20.0)
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--opt-level", default="all", choices=LEVELS)
    ap.add_argument("--temporary", action="store_true", help="OUT_DIR is removed afterwards (recorded)")
    ap.add_argument("--progress", action="store_true", help="'\\rmeasure RUN/RUNS' on stderr after each run")
    a = ap.parse_args(argv)
    try:
        measure(a.model, a.out_dir, dict(a.input), a.ep, a.threads, a.reps, a.warmup, a.opt_level, not a.temporary,
                a.progress, a.max_seconds, a.tolerance)
    except MeasureError as e:
        print(f"onnxcost: error: {a.model}: {e}", file=sys.stderr)
        return 2
    return 0  # nothing on stdout: onnxcost's report goes there


if __name__ == "__main__":
    # onnxcost forwards SIGINT and SIGTERM here and cleans up after: die of
    # them quietly, as of SIGTERM, without a KeyboardInterrupt traceback
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
