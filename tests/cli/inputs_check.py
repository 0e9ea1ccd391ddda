#!/usr/bin/env python3
"""cli.inputs — no output of onnxcost ever destroys one of its inputs
(issue 42, B; docs/ROBUSTNESS.md, "Inputs are never outputs").

Every check compares the input's bytes before and after with the file
system, not with onnxcost:
  * -o onto the model, through a symlink and a hard link, onto its external
    data file and onto a --baseline file: exit 2, one error line, the
    input's bytes unchanged; for plan, lint, analyze (with ranges too),
    compare, sweep --format html, llm; annotate onto the model's external
    data (annotate may rewrite the model itself in place, as cli.outputs
    checks);
  * FIFOs as the model, --baseline and --measured: exit 2 at once (a
    reader of a FIFO without a writer would wait forever);
  * measure --save: a missing folder made with its parents; files already
    there kept (exit 2) unless --force; never over the model's weights even
    with --force (a weights file named MODEL.ort.data); a file as DIR
    refused in one line;
  * measure stopped by SIGTERM or SIGINT: the ONNX Runtime driver stops,
    the temporary folder is removed, and onnxcost dies of that signal;
  * measure's warnings about ONNX Runtime's graph name the model, never the
    temporary folder removed when it returns; a graph ONNX Runtime folds to
    nothing is said to be so (not "was profiling enabled?").

Usage: inputs_check.py ONNXCOST SOURCE_DIR
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures, passes = [], 0
TMP = tempfile.mkdtemp(prefix="oc-inputs.")


def ok(tag, msg=""):
    global passes
    passes += 1
    print(f"ok   {tag}{': ' + msg if msg else ''}")


def fail(tag, msg):
    failures.append(tag)
    print(f"FAIL {tag}: {msg}")


def run(args, timeout=60, env=None):
    return subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout, cwd=TMP,
                          env=dict(os.environ, **(env or {})))


def data(p):
    with open(os.path.join(TMP, p), "rb") as f:
        return f.read()


def errors(p):
    return [ln for ln in p.stderr.splitlines() if ": error: " in ln]


shutil.copy(os.path.join(SRC, "fixtures", "mnist", "torchsummary_net.onnx"), os.path.join(TMP, "m.onnx"))
os.symlink("m.onnx", os.path.join(TMP, "link.onnx"))
os.link(os.path.join(TMP, "m.onnx"), os.path.join(TMP, "hard.onnx"))
model = data("m.onnx")
p = run(["m.onnx", "--batch", "2", "--format", "json", "-o", "base.json", "-q"])
assert p.returncode == 0, p.stderr
base = data("base.json")

# a model with its weights in a file beside it, written with the onnx package
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

m = onnx.load(os.path.join(TMP, "m.onnx"))
onnx.save(m, os.path.join(TMP, "ext.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
          location="ext.weights", size_threshold=0)
weights = data("ext.weights")
shutil.copy(os.path.join(SRC, "fixtures", "corpus", "microsoft+onnxruntime-genai",
                         "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx"),
            os.path.join(TMP, "gpt2.onnx"))

# a model naming 5,000 external data files: every one is an input (only the
# first 4,096 were recorded, and -o onto the 4,100th replaced its weights)
many = []
for i in range(5000):
    t = helper.make_tensor(f"w{i}", TensorProto.FLOAT, [1], [0.0])
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", f"many_w{i}.bin"
    with open(os.path.join(TMP, f"many_w{i}.bin"), "wb") as f:
        f.write(b"\0\0\0\0")
    many.append(t)
onnx.save(helper.make_model(helper.make_graph(
    [helper.make_node("Add", ["x", "w0"], ["y"])], "many",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], initializer=many),
    opset_imports=[helper.make_opsetid("", 17)]), os.path.join(TMP, "many.onnx"))

cases = [  # (tag, argv, the input that must not change)
    ("analyze_onto_external_file_4100", ["many.onnx", "-o", "many_w4099.bin"], "many_w4099.bin"),
    ("analyze_onto_external_file_5000", ["many.onnx", "-o", "many_w4999.bin"], "many_w4999.bin"),
    ("analyze_onto_model", ["m.onnx", "-o", "m.onnx"], "m.onnx"),
    ("analyze_ranges_onto_model", ["m.onnx", "--dim", "batch=1:4", "-o", "m.onnx"], "m.onnx"),
    ("analyze_through_symlink", ["m.onnx", "--format", "json", "-o", "link.onnx"], "m.onnx"),
    ("analyze_through_hard_link", ["m.onnx", "-o", "hard.onnx"], "m.onnx"),
    ("analyze_onto_baseline", ["m.onnx", "--baseline", "base.json", "-o", "base.json"], "base.json"),
    ("plan_onto_model", ["plan", "m.onnx", "-o", "m.onnx"], "m.onnx"),
    ("lint_onto_model", ["lint", "m.onnx", "-o", "link.onnx"], "m.onnx"),
    ("lint_onto_external_data", ["lint", "ext.onnx", "-o", "ext.weights"], "ext.weights"),
    ("analyze_onto_external_data", ["ext.onnx", "-o", "ext.weights"], "ext.weights"),
    ("compare_onto_second_model", ["compare", "m.onnx", "ext.onnx", "-o", "ext.onnx"], "ext.onnx"),
    ("sweep_html_onto_model", ["sweep", "m.onnx", "--dim", "batch=1,2", "--format", "html", "-o", "m.onnx"],
     "m.onnx"),
    ("llm_onto_model", ["llm", "gpt2.onnx", "-o", "gpt2.onnx"], "gpt2.onnx"),
    ("annotate_onto_external_data", ["annotate", "ext.onnx", "-o", "ext.weights"], "ext.weights"),
]
before = {"m.onnx": model, "base.json": base, "ext.weights": weights, "ext.onnx": data("ext.onnx"),
          "gpt2.onnx": data("gpt2.onnx"), "many_w4099.bin": data("many_w4099.bin"),
          "many_w4999.bin": data("many_w4999.bin")}
for tag, argv, kept in cases:
    p = run(argv)
    e = errors(p)
    if p.returncode == 2 and len(e) == 1 and "never writes over its inputs" in e[0] and data(kept) == before[kept]:
        ok(tag, e[0][:110])
    else:
        fail(tag, f"exit {p.returncode}, {kept} unchanged: {data(kept) == before[kept]}; {p.stderr[-300:]}")
# the refusal is for inputs only: a new file is written, and so is an old report
for tag, argv in (("new_file_written", ["m.onnx", "-o", "new.txt", "-q"]),
                  ("old_report_replaced", ["m.onnx", "-o", "new.txt", "-q", "--batch", "3"])):
    p = run(argv)
    if p.returncode == 0 and b"Total params" in data("new.txt"):
        ok(tag)
    else:
        fail(tag, f"exit {p.returncode}: {p.stderr[-200:]}")

# FIFOs: refused at once, never waited on
os.mkfifo(os.path.join(TMP, "f.fifo"))
with open(os.path.join(TMP, "e2e_fifo.csv"), "w") as f:  # a model path in calibrate's table
    f.write("model,bindings,device,precision,mode,measured,unit,role,source\n"
            f"{os.path.join(TMP, 'f.fifo')},batch=1,h100-sxm,fp32,inference,5,ms,fit,x\n")
for tag, argv in (("fifo_model", ["f.fifo"]), ("fifo_baseline", ["m.onnx", "--baseline", "f.fifo"]),
                  ("fifo_measured", ["m.onnx", "--measured", "f.fifo"]),
                  ("fifo_calibrate_model", ["calibrate", "--end-to-end", "e2e_fifo.csv"]),
                  ("fifo_calibrate_table", ["calibrate", "--end-to-end", "f.fifo"])):
    t = time.time()
    try:
        p = run(argv, timeout=20)
    except subprocess.TimeoutExpired:
        fail(tag, "waited on the FIFO")
        continue
    e = errors(p)
    if p.returncode == 2 and len(e) == 1 and "FIFO" in e[0] and time.time() - t < 10:
        ok(tag, e[0][:100])
    else:
        fail(tag, f"exit {p.returncode}: {p.stderr[-200:]}")

# measure --save, and measure stopped: needs ONNX Runtime in this Python
try:
    import onnxruntime  # noqa: F401
except ImportError:
    onnxruntime = None
if onnxruntime is None:
    fail("measure", "this Python has no onnxruntime (the oracle Python must: .ci/install-deps)")
else:
    env = {"ONNXCOST_PYTHON": sys.executable}
    p = run(["measure", "ext.onnx", "--save", "saved/a/b", "--reps", "2", "-q"], env=env, timeout=300)
    saved = sorted(os.listdir(os.path.join(TMP, "saved", "a", "b"))) if p.returncode == 0 else []
    if saved == ["ext.ort.data", "ext.ort.onnx", "ext.profile.json"]:
        ok("measure_save_makes_folders", ", ".join(saved))
    else:
        fail("measure_save_makes_folders", f"exit {p.returncode}: {saved} {p.stderr[-300:]}")
    keep = {f: data(os.path.join("saved", "a", "b", f)) for f in saved}
    p = run(["measure", "ext.onnx", "--save", "saved/a/b", "--reps", "2", "-q"], env=env, timeout=300)
    e = errors(p)
    same = all(data(os.path.join("saved", "a", "b", f)) == keep[f] for f in saved)
    if p.returncode == 2 and len(e) == 1 and "--force" in e[0] and same:
        ok("measure_save_keeps_files", e[0][:100])
    else:
        fail("measure_save_keeps_files", f"exit {p.returncode}, kept {same}: {p.stderr[-300:]}")
    p = run(["measure", "ext.onnx", "--save", "saved/a/b", "--reps", "2", "-q", "--force"], env=env, timeout=300)
    if p.returncode == 0:
        ok("measure_save_force")
    else:
        fail("measure_save_force", f"exit {p.returncode}: {p.stderr[-300:]}")
    p = run(["measure", "ext.onnx", "--save", "base.json", "--reps", "2"], env=env, timeout=300)
    e = errors(p)
    if p.returncode == 2 and len(e) == 1 and "takes a folder" in e[0] and data("base.json") == base:
        ok("measure_save_onto_file", e[0][:90])
    else:
        fail("measure_save_onto_file", f"exit {p.returncode}: {p.stderr[-300:]}")
    # the model's own weights named as --save would name its output's
    os.mkdir(os.path.join(TMP, "w"))
    m2 = onnx.load(os.path.join(TMP, "ext.onnx"), load_external_data=False)
    for t in m2.graph.initializer:
        for kv in t.external_data:
            if kv.key == "location":
                kv.value = "m.ort.data"
    onnx.save(m2, os.path.join(TMP, "w", "m.onnx"))
    shutil.copy(os.path.join(TMP, "ext.weights"), os.path.join(TMP, "w", "m.ort.data"))
    p = run(["measure", "w/m.onnx", "--save", "w", "--reps", "2", "--force"], env=env, timeout=300)
    e = errors(p)
    if p.returncode == 2 and len(e) == 1 and "never writes over its inputs" in e[0] and \
            data(os.path.join("w", "m.ort.data")) == weights:
        ok("measure_save_never_over_weights", e[0][:110])
    else:
        fail("measure_save_never_over_weights", f"exit {p.returncode}, weights "
             f"{len(data(os.path.join('w', 'm.ort.data')))} B: {p.stderr[-300:]}")
    # the analysis of ONNX Runtime's graph warns (a com.microsoft op it has no
    # rule for, Inverse): the warning names the model, not the temporary folder
    # that is gone when measure returns (issue 42, D)
    gi = helper.make_graph([helper.make_node("Inverse", ["x"], ["y"], domain="com.microsoft")], "inv",
                           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3, 3])],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3, 3])])
    onnx.save(helper.make_model(gi, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]),
              os.path.join(TMP, "inv.onnx"))
    p = run(["measure", "inv.onnx", "--reps", "2"], env=env, timeout=300)
    warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    if p.returncode == 0 and warn and not any("onnxcost-measure-" in ln for ln in warn) and \
            all(ln.startswith("onnxcost: warning: inv.onnx (as ONNX Runtime optimized it): ") for ln in warn):
        ok("measure_warnings_name_the_model", warn[0][:100])
    else:
        fail("measure_warnings_name_the_model", f"exit {p.returncode}: {warn[:2]} {p.stderr[-200:]}")
    # a dynamically quantized MatMul, which ONNX Runtime runs fused (DynamicQuantizeMatMul or
    # MatMulIntegerToFloat): its graph is costed whole, no warning
    try:
        import logging
        logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice on pre-processing
        from onnxruntime.quantization import quantize_dynamic
        w = numpy_helper.from_array(np.random.default_rng(1).random((64, 64)).astype(np.float32), "W")
        gq = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "q",
                               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
                               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])], initializer=[w])
        onnx.save(helper.make_model(gq, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(TMP, "fp.onnx"))
        quantize_dynamic(os.path.join(TMP, "fp.onnx"), os.path.join(TMP, "q.onnx"))
        p = run(["measure", "q.onnx", "--reps", "2", "--format", "json"], env=env, timeout=300)
        warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
        ops = {n.get("op_type") for n in json.loads(p.stdout or "{}").get("nodes", [])} if p.returncode == 0 else set()
        if p.returncode == 0 and not warn and ops & {"DynamicQuantizeMatMul", "MatMulIntegerToFloat"}:
            ok("measure_quantized_matmul_costed", str(sorted(ops)))
        else:
            fail("measure_quantized_matmul_costed", f"exit {p.returncode}: {warn[:2]} {sorted(ops)}")
    except ImportError:
        fail("measure_quantized_matmul_costed", "onnxruntime.quantization is missing")

    # a graph ONNX Runtime folds to nothing (its output is the input's static
    # shape): one line saying so, not "was the session made with enable_profiling?"
    gs = helper.make_graph([helper.make_node("Shape", ["x"], ["s"])], "folds",
                           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                           [helper.make_tensor_value_info("s", TensorProto.INT64, [2])])
    onnx.save(helper.make_model(gs, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(TMP, "folds.onnx"))
    p = run(["measure", "folds.onnx", "--reps", "2"], env=env, timeout=300)
    e = errors(p)
    if p.returncode == 2 and len(e) == 1 and "folded the whole graph" in e[0] and "enable_profiling" not in e[0]:
        ok("measure_nothing_to_time", e[0][:100])
    else:
        fail("measure_nothing_to_time", f"exit {p.returncode}: {p.stderr[-300:]}")

    # stopped: the driver goes, the temporary folder goes, the signal is onnxcost's exit
    tmpdir = os.path.join(TMP, "tmpdir")
    os.mkdir(tmpdir)
    for sig in (signal.SIGTERM, signal.SIGINT):
        q = subprocess.Popen([BIN, "measure", "m.onnx", "--batch", "64", "--reps", "100000", "-q"], cwd=TMP,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, TMPDIR=tmpdir, **env))
        folder = []
        for _ in range(300):  # the driver has started when its folder holds ONNX Runtime's profile
            folder = glob.glob(os.path.join(tmpdir, "onnxcost-measure-*", "*"))
            if folder:
                break
            time.sleep(0.1)
        time.sleep(1.0)
        q.send_signal(sig)
        try:
            err = q.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            q.kill()
            fail(f"measure_stopped_{sig.name}", "onnxcost did not stop within 60 s")
            continue
        left = [os.path.basename(f) for f in glob.glob(os.path.join(tmpdir, "onnxcost-measure-*"))]
        drivers = subprocess.run(["pgrep", "-f", f"ort_measure.*{TMP}"], capture_output=True, text=True).stdout
        if folder and q.returncode == -sig and not left and not drivers.strip():
            ok(f"measure_stopped_{sig.name}", f"died of {sig.name}, folder removed, no driver left")
        else:
            fail(f"measure_stopped_{sig.name}", f"exit {q.returncode}, started {bool(folder)}, left {left}, "
                                                f"drivers {drivers.split()}: {err[-300:]}")

shutil.rmtree(TMP, ignore_errors=True)
print(f"{passes} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
