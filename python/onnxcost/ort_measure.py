"""Runs an ONNX model in ONNX Runtime with its profiler on: what `onnxcost
measure` drives (docs/MEASURED.md).

It needs only onnxruntime and numpy; it does not import the onnxcost
extension, so the C command can run it with any Python that has ONNX
Runtime:

    python ort_measure.py MODEL.onnx OUT_DIR --input NAME=D0,D1,... [...]
        [--ep cpu] [--threads N] [--reps N] [--warmup N] [--opt-level all] [--temporary]

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


def measure(model: str, out_dir: str, shapes: dict[str, list[int]], ep: str = "cpu", threads: int = 0,
            reps: int = 20, warmup: int = 3, opt_level: str = "all", kept: bool = True,
            progress: bool = False) -> dict:
    """Runs `model` warmup + reps times under the profiler; returns the paths
    written and the run's record (the "onnxcost" event's args)."""
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
        total = warmup + reps
        for i in range(total):
            sess.run(None, feeds)
            if progress:  # onnxcost relays it (a terminal line, or the Python binding's tqdm)
                sys.stderr.write(f"\rmeasure {i + 1}/{total}" + ("\r\033[K" if i + 1 == total else ""))
                sys.stderr.flush()
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
    events, dropped = _drop_warmup(events, warmup)
    record = {
        "runtime": "onnxruntime",
        "version": ort.__version__,
        "providers": sess.get_providers(),
        "intra_op_threads": threads,
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_model(),
        "opt_level": opt_level,
        "warmup_runs_dropped": dropped,
        "runs": reps,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ort_measure", description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("out_dir")
    ap.add_argument("--input", type=_shape, action="append", default=[], metavar="NAME=D0,D1,...")
    ap.add_argument("--ep", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--opt-level", default="all", choices=LEVELS)
    ap.add_argument("--temporary", action="store_true", help="OUT_DIR is removed afterwards (recorded)")
    ap.add_argument("--progress", action="store_true", help="'\\rmeasure RUN/RUNS' on stderr after each run")
    a = ap.parse_args(argv)
    try:
        measure(a.model, a.out_dir, dict(a.input), a.ep, a.threads, a.reps, a.warmup, a.opt_level, not a.temporary,
                a.progress)
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
