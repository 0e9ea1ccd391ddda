#!/usr/bin/env python3
"""timm's published GPU benchmark rows beside onnxcost (issue 54).

timm (pytorch-image-models, Apache-2.0) publishes measured inference and
training throughput for about 1,400 model configurations per GPU; the files
we use are in bench/timm/ with their provenance (bench/timm/README.md). This
harness exports the models those rows name, keeps shape-only copies, joins
each row to onnxcost's prediction at its batch and writes the tables
docs/results/timm-*.md. Four steps, each rerunnable on its own:

  export  --csv FILE... --out DIR [--models A,B] [--limit N] [--timeout S] [--max-gib G]
      Every (model, image size) the CSVs list, made with timm at random
      weights (pip install timm==1.0.31; every parameter and buffer redrawn,
      since the exporter merges equal tensors such as zero-initialised ones)
      and exported at opset 17 with a symbolic batch, one subprocess per
      model. The file is kept shape-only: every float tensor of more than
      1,024 elements keeps its dims and drops its data (onnxcost never reads
      weights; a copy is a few hundred KB). Each export runs within --max-gib
      of address space (8) and --timeout seconds (600), in an order that
      spreads every prefix over the families, the lightest of each first. DIR/manifest.tsv records every
      attempt: ok, or failed with the reason (never dropped), and of each
      model its parameters, BatchNorm channels and how its attention runs
      under PyTorch 2 (sdpa or written). Models already in the manifest are
      skipped.
  counts  --models DIR
      Fills those columns into manifest rows written before they were.
  join    --csv FILE --models DIR --onnxcost BIN --gpu ID [--dtype D --math M]
          [--extra ARGS] [--written ARGS] --out ROWS.tsv
      Each row of the file beside onnxcost's predicted samples/s at the
      row's batch and image size. --written: options added for the models
      whose attention timm writes out in PyTorch 2 (the manifest's
      attention column: no module calls scaled_dot_product_attention),
      e.g. "--unfused-attention". A row whose model has no file says why
      (not exported yet, or the export's failure) in its status column.
      --backward-terms (training rows): the step's backward priced at 2 x
      forward for a contraction's kernel class and 1.5 x for the rest,
      whatever the GPU's built-in backward fit, and each class's backward
      seconds written as the row's terms.
  fit     ROWS.tsv [--apply OTHER.tsv...] [--backward] --out FIT.json
      The kernel classes' factors from every tenth joined row (in family,
      model and size order), checked on the others and on OTHER's rows.
      --backward: rows joined with --backward-terms; the fit also gives
      each class's backward ratio (its base over its factor).
  fitsdef FIT.json --gpu ID [--runtime OC_RUNTIME_...] [--channels-last] [--backward]
      Writes a fit's factors into its entry of views/perf/fits.def
      (--backward: its backward ratios into an OC_TRAINING entry).
  checks  LABEL=FIT.json...
      Markdown: each fit's fitted and unseen rows, and the files it was
      applied to as it is.
  table   ROWS.tsv... [--title T]
      Markdown: per rows file, the rows joined, within 10 % and 15 %, the
      median |ln(predicted/measured)|, and the families furthest off.
  static  --csv FILE --models DIR --onnxcost BIN --out STATIC.tsv
      onnxcost's parameters and GMACs per image (batch 1) against the row's
      param_count (millions, 2 decimals) and infer_gmacs.

The join and table functions are plain functions over rows
(tests/cli/timm_join_check.py checks them on hand-made rows).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

MANIFEST_FIELDS = ["model", "img_size", "status", "reason", "family", "seconds", "file", "torch_params",
                   "bn_channels", "attention", "reparam_file"]
ROW_FIELDS = ["model", "img_size", "batch", "measured_sps", "predicted_sps", "ratio", "family", "status",
              "latency_s", "class_s", "split_s"]
# onnxcost's kernel classes (views/perf/perf.h, enum oc_kclass), the fit's unknowns
KCLASSES = ["gemm", "attention", "conv_3x3", "conv_kxk", "conv_1x1", "conv_grouped", "conv_depthwise", "eltwise",
            "reduce", "pool", "move", "pass", "fused"]
# the contraction classes (oc_kclass_contraction): an additive fit prices
# their kernels as compute / the class's factor + memory / MEMORY's factor
CONTRACTIONS = KCLASSES[:7]
MEMORY = "memory"
# a training step's kernels' fixed cost (onnxcost's training_step.kernels_s):
# a backward fit's term beside the classes' backward seconds
KERNELS = "kernels"
FACTORS = KCLASSES + [MEMORY, KERNELS]
SHAPE_ONLY_MIN = 1024  # float tensors larger than this keep their dims only
# a training step's backward over forward per kernel class where nothing is
# fitted (views/perf/parallel.h): 2 for a contraction, 1.5 for the rest; a
# backward fit's terms are joined at these (join --backward-terms)
BACKWARD_BASE = {c: 2.0 if c in CONTRACTIONS else 1.5 for c in KCLASSES}
KERNEL_BASE_US = 10.0  # and each kernel of the step this many microseconds beyond its launch


def backward_base_arg():
    """BACKWARD_BASE as onnxcost's --backward-ratio value."""
    return ",".join(f"{c}={v:g}" for c, v in BACKWARD_BASE.items())


# ---- reading the published rows ------------------------------------------------------

def read_rows(path):
    """The rows of a timm benchmark CSV as dicts with typed keys: model,
    img_size, batch, sps (samples/s), params_m, gmacs (None where the file has
    no such column: the training files have no GMACs)."""
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            train = "train_samples_per_sec" in r
            pre = "train_" if train else "infer_"
            out.append({
                "model": r["model"],
                "img_size": int(float(r[pre + "img_size"])),
                "batch": int(float(r[pre + "batch_size"])),
                "sps": float(r[pre + "samples_per_sec"]),
                "params_m": float(r["param_count"]) if r.get("param_count") else None,
                "gmacs": float(r["infer_gmacs"]) if r.get("infer_gmacs") else None,
            })
    return out


def describe(path):
    """GPU, layout, runtime, precision and mode from a file name such as
    benchmark-infer-amp-nhwc-pt240-cu124-rtx4090-dynamo.csv."""
    parts = os.path.basename(path)[:-4].split("-")
    mode, precision, layout = parts[1], parts[2], parts[3]
    gpu = [p for p in parts[4:] if p.startswith("rtx") or p[:1].isdigit()]
    torch_v = [p for p in parts if p.startswith("pt")]
    return {
        "mode": mode,
        "precision": precision,
        "layout": layout,
        "runtime": "torch.compile" if parts[-1] == "dynamo" else "eager",
        "torch": ".".join(torch_v[0][2:]) if torch_v else "?",
        "gpu": "RTX " + gpu[0].replace("rtx", "") if gpu else "?",
    }


def name_family(model):
    """A model's family before it is built: its name up to the first '_' or
    digit (resnet50 -> resnet, vit_small_patch16_224 -> vit)."""
    out = ""
    for ch in model:
        if ch == "_" or ch.isdigit():
            break
        out += ch
    return out or model


def spread(pairs, weight=None):
    """The pairs in an order where every prefix spreads over the families:
    each family's first, then each one's second, ...; within a family the
    lightest first (weight: a pair's parameters, say), then by name."""
    weight = weight or {}
    rank, seen = {}, {}
    for m, size in sorted(pairs, key=lambda k: (weight.get(k, 0), k)):
        f = name_family(m)
        rank[(m, size)] = seen.get(f, 0)
        seen[f] = rank[(m, size)] + 1
    return sorted(pairs, key=lambda k: (rank[k], weight.get(k, 0), name_family(k[0]), k))


# ---- the manifest of exports -----------------------------------------------------------

def read_manifest(folder):
    path = os.path.join(folder, "manifest.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {(r["model"], int(r["img_size"])): r for r in csv.DictReader(f, delimiter="\t")}


def rewrite_manifest(folder, rows):
    """The manifest written whole (every row, MANIFEST_FIELDS' columns), by
    way of a new file renamed over it."""
    path = os.path.join(folder, "manifest.tsv")
    with open(path + ".new", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=MANIFEST_FIELDS, delimiter="\t")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k) or "" for k in MANIFEST_FIELDS})
    os.replace(path + ".new", path)


def append_manifest(folder, row):
    path = os.path.join(folder, "manifest.tsv")
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=MANIFEST_FIELDS, delimiter="\t")
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in MANIFEST_FIELDS})


def file_name(model, img_size):
    return f"{model}-{img_size}.onnx"


# ---- export (one model per subprocess) ------------------------------------------------

def export_one(model, img_size, out_path, reparam=False):
    """Runs in its own process: timm's model at random weights, exported at
    opset 17 with a symbolic batch, then made shape-only. Prints the family
    (timm's module) on success; raises on failure. reparam: the model as
    timm's reparameterize_model leaves it for inference (RepVGG's,
    MobileOne's, FastViT's branches merged into one convolution; LeViT's
    and EfficientViT's BatchNorms fused into their Linear), as timm's
    benchmark.py --reparam runs it."""
    import torch

    m = build_model(model, img_size)
    if reparam:
        from timm.utils.model import reparameterize_model
        m = reparameterize_model(m).eval()
    counts = torch_counts(m)
    for x in m.modules():  # torch 1.13 has no scaled_dot_product_attention: the export writes it out
        if getattr(x, "fused_attn", None) is True:
            x.fused_attn = False
    with torch.no_grad():
        for t in list(m.parameters()) + list(m.buffers()):
            if t.dtype.is_floating_point:
                t.copy_(torch.rand_like(t) * 0.02 + 0.01)  # positive: a variance stays one
    x = torch.randn(1, 3, img_size, img_size)
    torch.onnx.export(m, x, out_path, opset_version=17, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, do_constant_folding=True)
    shape_only(out_path)
    print(json.dumps(counts))


def build_model(model, img_size):
    """timm's model at random weights, in eval mode, built for img_size
    where it takes one (a transformer's position table)."""
    import torch
    import timm

    try:  # the attention each module calls under the PyTorch the rows ran (2.x has SDPA), as timm decides it
        import timm.layers.config as timm_config
        timm_config._HAS_FUSED_ATTN = True
    except (ImportError, AttributeError):
        pass
    torch.manual_seed(0)
    try:
        m = timm.create_model(model, pretrained=False)
    except Exception as e:  # noqa: BLE001 - the reason goes to the manifest
        raise RuntimeError(f"create_model: {type(e).__name__}: {e}")
    cfg = getattr(m, "pretrained_cfg", {}) or {}
    size = tuple(cfg.get("test_input_size") or cfg.get("input_size") or (3, img_size, img_size))
    if size[-1] != img_size:  # the row's size is not the model's own: build it at that size
        try:
            m = timm.create_model(model, pretrained=False, img_size=img_size)
        except TypeError:
            pass  # a convolutional net takes any size as it is
    return m.eval()


def cmd_reparam(a):
    """For the rows of the files given whose model was measured
    reparameterized (measured_reparameterized), the reparameterized model
    exported beside the plain one (FILE-reparam.onnx) and named in the
    manifest's reparam_file; a model timm's reparameterize_model leaves as
    it is names its own file. Run it while no export is appending."""
    manifest = read_manifest(a.models)
    todo = []
    for path in a.csv:
        for r in read_rows(path):
            m = manifest.get((r["model"], r["img_size"]))
            if m and m["status"] == "ok" and not m.get("reparam_file") and m not in todo and \
                    measured_reparameterized(int(m["torch_params"]) if m.get("torch_params") else None, r["params_m"]):
                todo.append(m)
    print(f"{len(todo)} models measured reparameterized to export", file=sys.stderr)
    for i, m in enumerate(todo):
        name = m["file"][: -len(".onnx")] + "-reparam.onnx"
        out = os.path.join(a.models, name)
        try:
            p = subprocess.run([sys.executable, __file__, "export-one", "--reparam", m["model"], str(m["img_size"]), out],
                               capture_output=True, text=True, timeout=a.timeout)
            ok = p.returncode == 0 and os.path.exists(out)
            why = "" if ok else ((p.stderr or "").strip().splitlines() or [f"exit {p.returncode}"])[-1][:200]
        except subprocess.TimeoutExpired:
            ok, why = False, f"more than {a.timeout} s"
        if ok:
            c = json.loads(p.stdout.strip().splitlines()[-1])
            if c.get("torch_params") == int(m["torch_params"]):  # nothing to reparameterize: the plain file
                os.remove(out)
                name = m["file"]
            m["reparam_file"] = name
        print(f"[{i + 1}/{len(todo)}] {m['model']} {m['img_size']}: {m.get('reparam_file') or 'FAILED ' + why}",
              file=sys.stderr)
    rewrite_manifest(a.models, manifest.values())


def cmd_counts(a):
    """Fills torch_params, bn_channels and attention into a manifest's rows
    that lack them (made before the export recorded them)."""
    rows = list(read_manifest(a.models).values())
    for r in rows:
        if r["status"] == "ok" and (not r.get("torch_params") or not r.get("attention")):
            p = subprocess.run([sys.executable, __file__, "counts-one", r["model"], str(r["img_size"])],
                               capture_output=True, text=True)
            if p.returncode == 0:
                c = json.loads(p.stdout.strip().splitlines()[-1])
                r.update({k: v for k, v in c.items() if k != "family" or not r.get("family")})
    rewrite_manifest(a.models, rows)


def torch_counts(m):
    """What the PyTorch model holds, to explain the file's parameter count:
    its family (timm's module), its parameters, and the channels of its
    BatchNorms (in eval mode the exporter folds a BatchNorm after a
    convolution into it: its scale and shift become the convolution's bias,
    one parameter per channel fewer), and how its attention runs in eager
    PyTorch 2: "sdpa" where a module calls scaled_dot_product_attention
    (timm's fused_attn, as timm sets it by default: on, but off for the
    modules it marks experimental), "written" where none does (any
    attention runs as its MatMuls and Softmax)."""
    import torch

    bn = sum(x.num_features for x in m.modules() if isinstance(x, torch.nn.modules.batchnorm._BatchNorm))
    sdpa = any(getattr(x, "fused_attn", None) is True for x in m.modules())
    return {"family": type(m).__module__.split(".")[-1], "torch_params": sum(p.numel() for p in m.parameters()),
            "bn_channels": bn, "attention": "sdpa" if sdpa else "written"}


def shape_only(path):
    """Drops the data of every float tensor of more than SHAPE_ONLY_MIN
    elements (initializers and Constant nodes), keeping its dims."""
    import onnx
    from onnx import TensorProto

    floats = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}
    m = onnx.load(path)

    def strip(t):
        if t.data_type in floats and math.prod(t.dims) > SHAPE_ONLY_MIN:
            for field in ("raw_data", "float_data", "double_data", "int32_data"):
                t.ClearField(field)

    for t in m.graph.initializer:
        strip(t)
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                strip(a.t)
    onnx.save(m, path)


def cmd_export(a):
    os.makedirs(a.out, exist_ok=True)
    seen = read_manifest(a.out)
    wanted, weight = [], {}
    for path in a.csv:
        for r in read_rows(path):
            key = (r["model"], r["img_size"])
            if key not in weight:
                wanted.append(key)
                weight[key] = (r["params_m"] or 0) * r["img_size"] ** 2
    if a.models:
        names = set(a.models.split(","))
        wanted = [k for k in wanted if k[0] in names]
    todo = spread([k for k in wanted if k not in seen], weight)
    if a.limit:
        todo = todo[: a.limit]
    print(f"{len(wanted)} (model, size) pairs listed, {len(wanted) - len(todo)} in the manifest, "
          f"{len(todo)} to export", file=sys.stderr)
    def limit():  # each export within --max-gib of address space: a giant model fails alone
        import resource
        cap = int(a.max_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    for i, (model, size) in enumerate(todo):
        out = os.path.join(a.out, file_name(model, size))
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, __file__, "export-one", model, str(size), out],
                               capture_output=True, text=True, timeout=a.timeout, preexec_fn=limit)
            ok = p.returncode == 0 and os.path.exists(out)
            lines = (p.stderr or "").strip().splitlines()
            reason = "" if ok else (lines[-1] if lines else f"exit {p.returncode}")[:300]
            counts = json.loads(p.stdout.strip().splitlines()[-1]) if ok and p.stdout.strip() else {}
        except subprocess.TimeoutExpired:
            ok, reason, counts = False, f"export took more than {a.timeout} s", {}
        if not ok and os.path.exists(out):
            os.remove(out)
        append_manifest(a.out, {"model": model, "img_size": size, "status": "ok" if ok else "failed",
                                "reason": reason, "seconds": f"{time.time() - t0:.1f}",
                                "file": file_name(model, size) if ok else "", **counts})
        print(f"[{i + 1}/{len(todo)}] {model} {size}: {'ok' if ok else 'FAILED ' + reason}", file=sys.stderr)


# ---- join ------------------------------------------------------------------------------

def measured_reparameterized(torch_params, params_m):
    """Whether a published row's model was reparameterized for inference
    (benchmark.py --reparam): its parameter count (millions, timm's 0.01
    rounding) below the count of the model as built."""
    return torch_params is not None and params_m is not None and round(torch_params / 1e6, 2) - params_m > 0.0051


def join_rows(rows, manifest, predict, reparam=False):
    """Each published row beside predict(file, batch) (samples/s, or None when
    onnxcost gives none, with a reason). Returns dicts of ROW_FIELDS; a row
    without a model file keeps measured_sps and says why in status.
    reparam: a model's reparameterized file where the manifest has one."""
    out = []
    for r in rows:
        m = manifest.get((r["model"], r["img_size"]))
        row = {"model": r["model"], "img_size": r["img_size"], "batch": r["batch"], "measured_sps": r["sps"],
               "predicted_sps": "", "ratio": "", "family": m.get("family", "") if m else "", "status": ""}
        if m is None:
            row["status"] = "no model file: not exported yet"
        elif m["status"] != "ok":
            row["status"] = "no model file: the export failed: " + m["reason"]
        else:
            pred, why, *more = predict((reparam and m.get("reparam_file")) or m["file"], r["batch"], m)
            if pred is None or not pred > 0:
                row["status"] = "no prediction: " + why
            else:
                row["predicted_sps"] = pred
                row["ratio"] = pred / r["sps"]
                row["status"] = "ok"
                if more:  # the time per kernel class (the fit's terms) and the latency
                    row["latency_s"] = more[0].get("latency_s", "")
                    row["class_s"] = ";".join(f"{c}={v:.6g}" for c, v in (more[0].get("class_s") or {}).items())
                    comp, mem = more[0].get("class_compute_s") or {}, more[0].get("class_memory_s") or {}
                    row["split_s"] = ";".join(f"{c}={comp[c]:.6g}/{mem.get(c, 0):.6g}" for c in comp)
        out.append(row)
    return out


def summarize(rows):
    """The joined rows' figures: n, within 10 % and 15 % (|pred/meas - 1|),
    the median |ln(pred/meas)|, and per family its median ratio."""
    ok = [r for r in rows if r["status"] == "ok"]
    lns = sorted(abs(math.log(r["ratio"])) for r in ok)
    med = (lns[len(lns) // 2] if len(lns) % 2 else (lns[len(lns) // 2 - 1] + lns[len(lns) // 2]) / 2) if lns else None
    fam = {}
    for r in ok:
        fam.setdefault(r["family"] or "?", []).append(r["ratio"])
    fam_med = {}
    for f, v in fam.items():
        v = sorted(v)
        fam_med[f] = (v[len(v) // 2] if len(v) % 2 else math.sqrt(v[len(v) // 2 - 1] * v[len(v) // 2]), len(v))
    return {
        "rows": len(rows),
        "joined": len(ok),
        "within10": sum(1 for r in ok if abs(r["ratio"] - 1) <= 0.10),
        "within15": sum(1 for r in ok if abs(r["ratio"] - 1) <= 0.15),
        "median_abs_ln": med,
        "families": fam_med,
    }


def onnxcost_predict(binary, folder, gpu, dtype, math_mode, extra, written=None):
    """predict(file, batch[, manifest row]): onnxcost's samples/s. written:
    options added for a model whose manifest says its attention is written
    out ("written": eager PyTorch runs it as the file has it, e.g.
    --unfused-attention)."""
    def predict(fname, batch, m=None):
        cmd = [binary, os.path.join(folder, fname), "-q", "--format", "json", "--batch", str(batch), "--gpu", gpu]
        if dtype:
            cmd += ["--dtype", dtype]
        if math_mode:
            cmd += ["--math", math_mode]
        cmd += extra
        if written and m is not None and m.get("attention") == "written":
            cmd += written
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 4):
            return None, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:200]
        doc = json.loads(p.stdout)
        g = doc.get("gpu") or {}
        uncosted = (doc.get("coverage") or {}).get("nodes_without_cost", 0)
        if uncosted:  # the time is a lower bound: no figure to compare (the cause is onnxcost's, and named)
            first = ((doc.get("coverage") or {}).get("uncosted_nodes") or [{}])[0]
            return None, (f"a lower bound: {uncosted} nodes without a cost (the first: {first.get('op_type')}, "
                          f"{first.get('reason')})")
        step = g.get("training_step")
        if step:  # a training row (--optimizer): the step's samples/s; a backward fit's terms are each
            # kernel class's backward seconds, the rest of the step (forward, update, BatchNorms) fixed
            return step.get("samples_per_s"), "no training_step.samples_per_s in the JSON", {
                "latency_s": step.get("step_s", ""),
                "class_s": dict(step.get("class_backward_s") or {}, **{KERNELS: step.get("kernels_s") or 0.0})}
        return g.get("samples_per_s"), "no samples_per_s in the JSON", g
    return predict


def write_joined(out, csv_path, joined, how):
    """The joined rows as a TSV: a header line (the file, what it is with
    csv_rows, its row count, and how it was priced), then every row of an
    exported model and of a failed export, with why. The rows of models not
    exported yet are counted in csv_rows, not written."""
    head = dict(describe(csv_path), csv_rows=len(joined))
    with open(out, "w", newline="") as f:
        f.write(f"# {os.path.basename(csv_path)}\t{json.dumps(head)}\t{how}\n")
        w = csv.DictWriter(f, fieldnames=ROW_FIELDS, delimiter="\t")
        w.writeheader()
        for r in joined:
            if r["status"] != "no model file: not exported yet":
                w.writerow({k: (f"{r[k]:.6g}" if isinstance(r.get(k), float) else r.get(k, "")) for k in ROW_FIELDS})


def cmd_join(a):
    rows = read_rows(a.csv)
    manifest = read_manifest(a.models)
    written = a.written.split() if a.written else []
    extra = a.extra.split() if a.extra else []
    if a.backward_terms:  # the training step's backward at BACKWARD_BASE, whatever the GPU's built-in fit
        extra += ["--backward-ratio", backward_base_arg(), "--step-kernel-us", f"{KERNEL_BASE_US:g}"]
    joined = join_rows(rows, manifest, onnxcost_predict(a.onnxcost, a.models, a.gpu, a.dtype, a.math, extra, written),
                       a.reparam)
    how = f"gpu={a.gpu} dtype={a.dtype} math={a.math} {' '.join(extra)}"
    if written:
        how += f" | attention written out: {a.written}"
    write_joined(a.out, a.csv, joined, how)
    s = summarize(joined)
    print(f"{a.csv}: {s['joined']} of {s['rows']} rows joined, {s['within15']} within 15 %", file=sys.stderr)


def read_joined(path):
    with open(path, newline="") as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = []
        for r in csv.DictReader(f, delimiter="\t"):
            if r["status"] == "ok":
                r["ratio"] = float(r["ratio"])
            rows.append(r)
    return head, rows


def cmd_table(a):
    print("| published file | GPU | layout | measured with | priced as | rows | joined | within 10 % | within 15 % "
          "| median \\|ln\\| | furthest families (median predicted/measured, rows) |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---|")
    for path in a.rows:
        head, rows = read_joined(path)
        d = json.loads(head[1]) if len(head) > 1 else {}
        s = summarize(rows)
        far = sorted(s["families"].items(), key=lambda kv: -abs(math.log(kv[1][0])))[:4]
        fams = ", ".join(f"{f} {m:.2f}× ({n})" for f, (m, n) in far)
        pct = lambda k: f"{s[k]} ({100 * s[k] / s['joined']:.0f} %)" if s["joined"] else "-"
        med = f"{s['median_abs_ln']:.2f}" if s["median_abs_ln"] is not None else "-"
        how, _, written = (head[2] if len(head) > 2 else "").partition(" | attention written out: ")
        priced = how.split("--runtime ")[1].split()[0] if "--runtime " in how else "nodes"
        if "--autocast " in how:  # autocast, at the default factors or with a built-in GPU's fit
            priced += " + autocast " + how.split("--autocast ")[1].split()[0]
            priced += " (default factors)" if "--efficiency" in how else " + built-in fit"
        if "--channels-last" in how:
            priced += " + channels-last"
        if "--unfused-attention" in how:
            priced += " + unfused attention"
        elif "--unfused-attention" in written:
            priced += " + written-out attention unfused"
        if "--optimizer " in how:
            priced += " + training step (" + how.split("--optimizer ")[1].split()[0] + ")"
        print(f"| {head[0].lstrip('# ')} | {d.get('gpu', '?')} | {d.get('layout', '?')} | {d.get('runtime', '?')} "
              f"| {priced} | {d.get('csv_rows', s['rows'])} | {s['joined']} | {pct('within10')} | {pct('within15')} | {med} | {fams} |")


# ---- the kernel classes' factors from end-to-end rows (item 5) ------------------------------
#
# onnxcost's time for a row is its launches plus, per kernel class c, the
# class's roofline time T_c (docs/MODEL.md, "Fitted kernel classes"); a
# class factor f_c divides T_c. With w_c = 1/f_c the prediction is
#     t(w) = rest + sum_c T_c w_c        (rest: the launches, latency - sum T_c)
# linear in w. An additive fit splits each contraction class's T_c into its
# kernels' compute terms C_c and memory terms M_c (the row's split_s) and
# prices them C_c w_c + M_c w_memory, one memory factor for them all:
#     t(w) = rest + sum_{c contraction} (C_c w_c + M_c w_memory)
#                 + sum_{c other} T_c w_c
# still linear in w. The fit takes x_c = ln w_c minimising
#     sum_rows (ln t(w) - ln measured)^2 + lam sum_c x_c^2
# (the ridge keeps a class the fitted rows hardly use at the default), by
# Gauss-Newton with a Levenberg damping, from x = 0.

def parse_class_s(text):
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = float(v)
    return out


def parse_split_s(text):
    """split_s ("gemm=C/M;...") -> {class: (compute seconds, memory seconds)}"""
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            c, _, m = v.partition("/")
            out[k] = (float(c), float(m or 0))
    return out


def fit_terms(rows, additive=False):
    """Each ok row with its decomposition: (the seconds each factor of
    FACTORS divides, rest, measured seconds per batch). Additive: a
    contraction class's compute seconds under its own factor, the memory
    seconds of them all under MEMORY's (a row without split_s refused);
    else each class's seconds under its factor and none under MEMORY's."""
    out = []
    for r in rows:
        if r.get("status") != "ok" or not r.get("class_s") or not r.get("latency_s"):
            continue
        t = parse_class_s(r["class_s"])
        T = [t.get(c, 0.0) for c in KCLASSES] + [0.0, t.get(KERNELS, 0.0)]
        if additive:
            if r.get("split_s") is None:  # joined before onnxcost wrote the split
                raise ValueError(f"{r['model']} at {r['img_size']}: no split_s for an additive fit (join it again)")
            split = parse_split_s(r["split_s"])
            for i, c in enumerate(KCLASSES):
                if c in CONTRACTIONS:
                    compute, memory = split.get(c, (0.0, 0.0))
                    T[i] = compute
                    T[FACTORS.index(MEMORY)] += memory
        lat = float(r["latency_s"])
        out.append((T, lat - sum(t.values()), int(r["batch"]) / float(r["measured_sps"])))
    return out


def predict_time(terms, w):
    T, rest, _ = terms
    return rest + sum(a * b for a, b in zip(T, w))


def solve(A, b):
    """A x = b for a small symmetric positive definite A (Gauss-Jordan with
    partial pivoting)."""
    n = len(b)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(M[k][i]))
        M[i], M[p] = M[p], M[i]
        for k in range(n):
            if k != i and M[i][i] != 0:
                f = M[k][i] / M[i][i]
                M[k] = [x - f * y for x, y in zip(M[k], M[i])]
    return [M[i][n] / M[i][i] if M[i][i] else 0.0 for i in range(n)]


def rho(r, scale):
    """The loss of one row's ln error r: r^2 (scale 0), else Cauchy's
    scale^2 ln(1 + (r / scale)^2), which a row far off (a family the model
    misses) pulls with a bounded force."""
    return r * r if not scale else scale * scale * math.log1p((r / scale) ** 2)


def fit_classes(terms, lam=0.1, iters=200, scale=0.0):
    """The factors f_c (1 for a class no fitted row has time in) minimising
    the ridge-regularised loss of the ln errors (rho); returns (factors,
    loss before, loss after), the losses the mean squared ln error over the
    rows."""
    used = [c for c in range(len(FACTORS)) if any(t[0][c] > 0 for t in terms)]
    x = [0.0] * len(FACTORS)

    def objective(x):
        w = [math.exp(v) for v in x]
        return sum(rho(math.log(predict_time(t, w)) - math.log(t[2]), scale) for t in terms) + \
            lam * sum(x[c] ** 2 for c in used)

    mu = 1e-3
    cur = objective(x)
    for _ in range(iters):
        w = [math.exp(v) for v in x]
        JtJ = [[0.0] * len(used) for _ in used]
        Jtr = [0.0] * len(used)
        for t in terms:
            pt = predict_time(t, w)
            r = math.log(pt) - math.log(t[2])
            J = [t[0][c] * w[c] / pt for c in used]  # d ln t / d x_c
            q = 1 / (1 + (r / scale) ** 2) if scale else 1.0  # rho's weight at r (iteratively reweighted)
            for i in range(len(used)):
                Jtr[i] += q * J[i] * r
                for k in range(len(used)):
                    JtJ[i][k] += q * J[i] * J[k]
        for i, c in enumerate(used):
            Jtr[i] += lam * x[c]
            JtJ[i][i] += lam
        step = solve([[JtJ[i][k] + (mu * JtJ[i][i] if i == k else 0) for k in range(len(used))]
                      for i in range(len(used))], [-v for v in Jtr])
        nx = list(x)
        for i, c in enumerate(used):
            nx[c] += step[i]
        new = objective(nx)
        if new < cur:
            gain = cur - new
            x, cur, mu = nx, new, max(mu / 3, 1e-9)
            if gain < 1e-12:
                break
        else:
            mu *= 4
            if mu > 1e9:
                break
    n = max(len(terms), 1)
    before = sum((math.log(predict_time(t, [1.0] * len(FACTORS))) - math.log(t[2])) ** 2 for t in terms) / n
    w = [math.exp(v) for v in x]
    after = sum((math.log(predict_time(t, w)) - math.log(t[2])) ** 2 for t in terms) / n
    return [1 / v for v in w], before, after


def backward_ratios(terms, factors):
    """A backward fit's ratios: per kernel class BACKWARD_BASE over the
    class's factor (the rows' class seconds are backward seconds at the
    base), 0 (the default per node) for a class no fitted row has time in."""
    return {c: (BACKWARD_BASE[c] / factors[i] if any(t[0][i] > 0 for t in terms) else 0.0)
            for i, c in enumerate(KCLASSES)}


def stratified(rows, every=10):
    """The documented 10 %: the ok rows in (family, model, size) order, every
    `every`-th from the first; returns (fit, check) lists of rows."""
    ok = sorted((r for r in rows if r.get("status") == "ok" and r.get("class_s")),
                key=lambda r: (r.get("family") or "", r["model"], int(r["img_size"])))
    return [r for i, r in enumerate(ok) if i % every == 0], [r for i, r in enumerate(ok) if i % every != 0]


def refit_rows(rows, factors, additive=False):
    """rows with predicted_sps and ratio under the factors (FACTORS' order;
    the others kept)."""
    out = []
    for r in rows:
        r = dict(r)
        if r.get("status") == "ok" and r.get("class_s"):
            t = fit_terms([r], additive)[0]
            sec = predict_time(t, [1 / f for f in factors])
            r["predicted_sps"] = int(r["batch"]) / sec
            r["ratio"] = r["predicted_sps"] / float(r["measured_sps"])
        out.append(r)
    return out


def cmd_fit(a):
    _, rows = read_joined(a.rows)
    fit, check = stratified(rows, a.every)
    factors, before, after = fit_classes(fit_terms(fit, a.additive), a.lam, scale=a.scale)
    res = {"fitted_on": os.path.basename(a.rows), "every": a.every, "lam": a.lam, "scale": a.scale,
           "additive": a.additive, "fit_models": [f"{r['model']}@{r['img_size']}" for r in fit],
           "factors": dict(zip(FACTORS, factors)), "fit_loss_before": before, "fit_loss_after": after}
    if not a.additive:
        del res["factors"][MEMORY]
    if not a.backward:
        del res["factors"][KERNELS]
    if a.backward:  # rows joined with --backward-terms: each class's backward ratio, BACKWARD_BASE over its factor
        res["backward_ratio"] = backward_ratios(fit_terms(fit), factors)
        res["kernel_us"] = KERNEL_BASE_US / factors[FACTORS.index(KERNELS)]
    def before_after(part):  # the rows' figures at the default factors and under the fit
        return {k: {f: s[f] for f in ("joined", "within10", "within15", "median_abs_ln")}
                for k, s in (("default", summarize(part)),
                             ("fitted", summarize(refit_rows(part, factors, a.additive))))}

    res["fit"], res["check"] = before_after(fit), before_after(check)
    for path in a.apply or []:  # the same factors on other rows: another GPU, layout or version
        res.setdefault("applied", {})[os.path.basename(path)] = before_after(read_joined(path)[1])
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    print(json.dumps({k: res[k] for k in ("factors", "fit", "check") if k in res}, indent=1))


def fits_def_update(text, fit, gpu, runtime, channels_last):
    """text (views/perf/fits.def) with the OC_FIT entry of gpu, runtime
    (OC_RUNTIME_...) and channels_last given fit's factors (fit: a fit
    command's JSON) and its model count; raises when there is no such
    entry. The classes a fit leaves at 1 keep their place."""
    import re
    head = f'OC_FIT("{gpu}", {runtime}, OC_DT_FLOAT16, {"true" if channels_last else "false"},'
    at = text.find(head)
    if at < 0:
        raise KeyError(f"no OC_FIT entry for {gpu} {runtime} channels_last={channels_last}")
    end = text.index(")\n", at) + 2
    entry = text[at:end]
    what = re.search(r'"([^"]*)"', entry[len(head):]).group(1)
    what = re.sub(r"\d+ models, every", f"{len(fit['fit_models'])} models, every", what)
    names = KCLASSES if runtime == "OC_RUNTIME_TORCH_COMPILE" else KCLASSES[:-1]
    nums = ", ".join(f"{fit['factors'][c]:.4g}" for c in names)
    memory = f"{fit['factors'][MEMORY]:.4g}" if fit.get("additive") else "0"
    new = f'{head}\n       "{what}",\n       {memory},\n       {nums})\n'
    return text[:at] + new + text[end:]


def training_def_update(text, fit, gpu, runtime, channels_last):
    """text (views/perf/fits.def) with the OC_TRAINING entry of gpu, runtime
    and channels_last given a backward fit's ratios (fit: a fit --backward
    command's JSON) and its model count; the entry is added at the end where
    there is none."""
    head = f'OC_TRAINING("{gpu}", {runtime}, OC_DT_FLOAT16, {"true" if channels_last else "false"},'
    what = (f"timm's published {gpu.upper().replace('RTX-', 'RTX ')} training rows (PyTorch 1.12 eager, AMP, "
            f"SGD with Nesterov momentum, {'channels-last' if channels_last else 'NCHW'}, batch 512 and less; "
            f"{len(fit['fit_models'])} models, every tenth)")
    nums = ", ".join(f"{fit['backward_ratio'][c]:.4g}" for c in KCLASSES)
    new = f'{head}\n            "{what}",\n            {fit["kernel_us"]:.4g},\n            {nums})\n'
    at = text.find(head)
    if at < 0:
        return text + new
    end = text.index(")\n", at) + 2
    return text[:at] + new + text[end:]


def checks_markdown(fits):
    """Markdown rows of each fit's own figures: [(label, fit JSON)] -> the
    fitted 10 % and the unseen rest of its file (within 10 %, within 15 %,
    median |ln|, and the same at the default factors), then every file the
    fit was applied to as it is, then the factors (the classes some fit
    moves from 1)."""
    def pct(s):
        return f"{s['within15']} ({100 * s['within15'] / s['joined']:.0f} %)" if s["joined"] else "0"

    out = ["| rows | fit | models | within 10 % | within 15 % | median \\|ln\\| | at the default factors: "
           "within 15 %, median \\|ln\\| |", "|---|---|---:|---:|---:|---:|---|"]
    for label, fit in fits:
        for part, name in (("fit", "the fitted 10 %"), ("check", "**unseen**")):
            f, d = fit[part]["fitted"], fit[part]["default"]
            bold = "**" if part == "check" else ""
            out.append(f"| {name} | {label} | {f['joined']} | {f['within10']} | {bold}{pct(f)}{bold} | "
                       f"{f['median_abs_ln']:.3f} | {pct(d)}, {d['median_abs_ln']:.3f} |")
    out += ["", "| fit | applied as it is to | models | within 15 % | median \\|ln\\| | at the default factors |",
            "|---|---|---:|---:|---:|---|"]
    for label, fit in fits:
        for path, r in (fit.get("applied") or {}).items():
            f, d = r["fitted"], r["default"]
            out.append(f"| {label} | {path.replace('.autocast.tsv', '').replace('.compile.tsv', '')} | {f['joined']} | "
                       f"{pct(f)} | {f['median_abs_ln']:.3f} | {pct(d)}, {d['median_abs_ln']:.3f} |")
    used = [c for c in FACTORS if any(abs(fit["factors"].get(c, 1.0) - 1.0) > 1e-12 for _, fit in fits)]
    out += ["", "| fit | " + " | ".join(used) + " |", "|---|" + "---:|" * len(used)]
    for label, fit in fits:
        out.append(f"| {label} | " + " | ".join(f"{fit['factors'].get(c, 1.0):.3f}" for c in used) + " |")
    return "\n".join(out)


def cmd_checks(a):
    fits = []
    for spec in a.fits:
        label, _, path = spec.partition("=")
        with open(path) as f:
            fits.append((label, json.load(f)))
    print(checks_markdown(fits))


def cmd_fitsdef(a):
    with open(a.fit) as f:
        fit = json.load(f)
    with open(a.defs) as f:
        text = f.read()
    text = (training_def_update if a.backward else fits_def_update)(text, fit, a.gpu, a.runtime, a.channels_last)
    with open(a.defs, "w") as f:
        f.write(text)


# ---- static figures ----------------------------------------------------------------------

def static_compare(rows, manifest, analyze):
    """Per exported (model, size): onnxcost's parameters (millions) and GMACs
    per image beside timm's; `analyze(file)` gives (params, macs) at batch 1.
    params_ok: equal at timm's 0.01 M rounding; gmacs_off: relative gap."""
    out, seen = [], set()
    for r in rows:
        key = (r["model"], r["img_size"])
        m = manifest.get(key)
        if key in seen or not m or m["status"] != "ok":
            continue
        seen.add(key)
        params, macs = analyze(m["file"])  # macs None: a lower bound (nodes without a cost)
        pm, gm = params / 1e6, (macs / 1e9 if macs is not None else None)
        torch_params = int(m["torch_params"]) if m.get("torch_params") else None
        out.append({
            "model": r["model"], "img_size": r["img_size"], "family": m.get("family", ""),
            "params_m": pm, "timm_params_m": r["params_m"],
            "params_ok": r["params_m"] is not None and abs(round(pm, 2) - r["params_m"]) <= 0.0051,
            "params_why": params_why(params, torch_params, int(m.get("bn_channels") or 0)),
            "gmacs": gm if gm is not None else "a lower bound: nodes without a cost", "timm_gmacs": r["gmacs"],
            "gmacs_off": (gm / r["gmacs"] - 1) if r["gmacs"] and gm is not None else None,
        })
    return out


def params_why(file_params, torch_params, bn_channels):
    """Why the file's parameters differ from the PyTorch model's (timm's
    param_count is that, rounded to 0.01 M): an eval export folds each
    BatchNorm after a convolution into it (its scale and shift become the
    convolution's bias: one parameter per channel fewer), and writes some
    computed tensors (a gathered position bias, a scalar) as float
    initializers, which count as parameters."""
    if torch_params is None:
        return "not known (no PyTorch count)"
    d = file_params - torch_params
    if d == 0:
        return "equal"
    if bn_channels and d == -bn_channels:
        return f"BatchNorm folded ({bn_channels:,} channels: one parameter each fewer)"
    if bn_channels and -bn_channels < d < 0:
        return f"BatchNorm folded ({bn_channels:,} channels) and {d + bn_channels:+,} other"
    if d > 0 and not bn_channels:
        return f"{d:+,}: computed tensors written as float initializers"
    if bn_channels:
        return f"BatchNorm ({bn_channels:,} channels) and {d + bn_channels:+,} other"
    return f"{d:+,} other"


def cmd_static(a):
    rows = read_rows(a.csv)
    manifest = read_manifest(a.models)

    def analyze(fname):
        p = subprocess.run([a.onnxcost, os.path.join(a.models, fname), "-q", "--format", "json", "--batch", "1"],
                           capture_output=True, text=True)
        doc = json.loads(p.stdout)
        complete = not (doc.get("coverage") or {}).get("nodes_without_cost")
        return doc["totals"]["params"], (doc["totals"]["macs"] if complete else None)

    res = static_compare(rows, manifest, analyze)
    with open(a.out, "w", newline="") as f:
        fields = ["model", "img_size", "family", "params_m", "timm_params_m", "params_ok", "params_why", "gmacs",
                  "timm_gmacs", "gmacs_off"]
        w = csv.DictWriter(f, fieldnames=fields, delimiter="\t")
        w.writeheader()
        for r in res:
            w.writerow({k: (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k]) for k in fields})
    n = len(res)
    pok = sum(r["params_ok"] for r in res)
    gok = sum(1 for r in res if r["gmacs_off"] is not None and (abs(r["gmacs_off"]) <= 0.02 or
                                                               abs(r["gmacs"] - r["timm_gmacs"]) <= 0.0051))
    bound = sum(1 for r in res if not isinstance(r["gmacs"], float))
    kinds = {}
    for r in res:
        w = r["params_why"]
        k = ("equal" if w == "equal" else "BatchNorm folded, nothing else" if w.endswith("fewer)") else
             "BatchNorm folded, and other" if w.startswith("BatchNorm") else
             "computed tensors as initializers" if "computed" in w else w if w.startswith("not known") else "other")
        kinds[k] = kinds.get(k, 0) + 1
    print(f"{n} models: parameters equal at 0.01 M on {pok}, GMACs within 2 % (or 0.01) on {gok} ({bound} lower "
          f"bounds left out); the file's "
          f"parameters against the PyTorch model's: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
          file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("--csv", nargs="+", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--models")
    e.add_argument("--limit", type=int, default=0)
    e.add_argument("--timeout", type=int, default=600)
    e.add_argument("--max-gib", type=float, default=8.0)
    one = sub.add_parser("export-one")
    one.add_argument("--reparam", action="store_true")
    one.add_argument("model")
    one.add_argument("img_size", type=int)
    one.add_argument("out")
    j = sub.add_parser("join")
    j.add_argument("--csv", required=True)
    j.add_argument("--models", required=True)
    j.add_argument("--onnxcost", required=True)
    j.add_argument("--gpu", required=True)
    j.add_argument("--dtype", default="fp16")
    j.add_argument("--math", default="fp16")
    j.add_argument("--extra", default="")
    j.add_argument("--written", default="")
    j.add_argument("--reparam", action="store_true",
                   help="a model's reparameterized file (the manifest's reparam_file) where it has one")
    j.add_argument("--backward-terms", action="store_true",
                   help="training rows: the backward at BACKWARD_BASE (--backward-ratio), each class's backward "
                        "seconds as the row's terms (for fit --backward)")
    j.add_argument("--out", required=True)
    fi = sub.add_parser("fit")
    fi.add_argument("rows")
    fi.add_argument("--every", type=int, default=10)
    fi.add_argument("--lam", type=float, default=0.1)
    fi.add_argument("--scale", type=float, default=0.15)
    fi.add_argument("--apply", nargs="*")
    fi.add_argument("--additive", action="store_true",
                    help="a contraction's kernels as compute + memory, one memory factor (needs split_s)")
    fi.add_argument("--backward", action="store_true",
                    help="rows joined with --backward-terms: the kernel classes' backward ratios")
    fi.add_argument("--out", required=True)
    fd = sub.add_parser("fitsdef")
    fd.add_argument("fit")
    fd.add_argument("--gpu", required=True)
    fd.add_argument("--runtime", default="OC_RUNTIME_TORCH_EAGER")
    fd.add_argument("--channels-last", action="store_true")
    fd.add_argument("--backward", action="store_true", help="a fit --backward's ratios, as an OC_TRAINING entry")
    fd.add_argument("--defs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "views", "perf",
                                                   "fits.def"))
    ck = sub.add_parser("checks")
    ck.add_argument("fits", nargs="+", help="LABEL=FIT.json")
    t = sub.add_parser("table")
    t.add_argument("rows", nargs="+")
    s = sub.add_parser("static")
    s.add_argument("--csv", required=True)
    s.add_argument("--models", required=True)
    s.add_argument("--onnxcost", required=True)
    s.add_argument("--out", required=True)
    rp = sub.add_parser("reparam")
    rp.add_argument("--csv", nargs="+", required=True)
    rp.add_argument("--models", required=True)
    rp.add_argument("--timeout", type=int, default=600)
    c = sub.add_parser("counts")
    c.add_argument("--models", required=True)
    co = sub.add_parser("counts-one")
    co.add_argument("model")
    co.add_argument("img_size", type=int)
    a = ap.parse_args()
    if a.cmd == "counts-one":
        print(json.dumps(torch_counts(build_model(a.model, a.img_size))))
        return
    if a.cmd == "export-one":
        try:
            export_one(a.model, a.img_size, a.out, a.reparam)
        except Exception as ex:  # noqa: BLE001 - one line for the manifest
            print(f"{type(ex).__name__}: {str(ex).splitlines()[0] if str(ex) else ''}"[:300], file=sys.stderr)
            sys.exit(1)
        return
    {"export": cmd_export, "join": cmd_join, "table": cmd_table, "static": cmd_static, "counts": cmd_counts, "reparam": cmd_reparam,
     "fit": cmd_fit, "fitsdef": cmd_fitsdef, "checks": cmd_checks}[a.cmd](a)


if __name__ == "__main__":
    main()
