#!/usr/bin/env python3
"""The replay on a zoo of real models (issue 39): every torchvision
classification model that exports at opset 17, plus GPT-2 small and
DistilBERT (tests/oracle/transformers.py), replayed with counters at
batch 1 and 32 in FP32 and at batch 32 in TF32 and FP16. Per run: the
exit status, the wall time, the nodes measured / aliased / skipped / failed,
each failure's reason, and every node the replay worker lost (a crash or a
hang, with its frames). Done means no run without its JSON and no failure
without a reason.

  zoo.py --onnxcost BIN --src REPO --work DIR [--configs b1-fp32,b32-fp32,...]
         [--models a,b,...] [--deadline UNIX_SECONDS] [--jobs N]

Writes DIR/zoo.json (one record per run, rewritten after each) and
DIR/zoo.md; runs that would start after the deadline are listed as not run.
Exports run in parallel (--jobs processes); replays one at a time (one GPU,
one counter session).
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--configs", default="b1-fp32,b32-fp32,b32-tf32,b32-fp16")
ap.add_argument("--models", default="")
ap.add_argument("--deadline", type=float, default=0)
ap.add_argument("--jobs", type=int, default=8)
ap.add_argument("--reps", default="5")
ap.add_argument("--export-timeout", type=int, default=120)
a = ap.parse_args()
zdir = os.path.join(a.work, "zoo")
os.makedirs(zdir, exist_ok=True)

# torchvision classification models; a model that does not export at opset 17
# is recorded with the exporter's reason
VISION = ["alexnet", "vgg11_bn", "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "densenet121",
          "googlenet", "inception_v3", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "mnasnet1_0",
          "shufflenet_v2_x1_0", "squeezenet1_1", "efficientnet_b0", "efficientnet_v2_s", "regnet_y_400mf",
          "regnet_x_1_6gf", "convnext_tiny", "vit_b_16", "swin_t", "maxvit_t"]
TEXT = ["gpt2", "distilbert"]
CONFIGS = {  # name -> (batch, extra options)
    "b1-fp32": (1, ["--math", "fp32"]),
    "b32-fp32": (32, ["--math", "fp32"]),
    "b32-tf32": (32, ["--math", "tf32"]),
    "b32-fp16": (32, ["--math", "fp16", "--dtype", "fp16"]),
}


def export(name):
    """Exports one model to zdir/NAME.onnx in a child process; returns (name, seconds, error or None)."""
    out = os.path.join(zdir, name + ".onnx")
    if os.path.exists(out):
        return name, 0.0, None
    code = f"""
import sys, torch
sys.path.insert(0, {os.path.join(a.src, 'tests', 'oracle')!r})
torch.set_num_threads(2)
torch.manual_seed(0)
import transformers as oracle
name, out = {name!r}, {out!r}
if name in ("gpt2", "distilbert"):
    oracle.export(name, out, opset=17)
else:
    import torchvision
    if hasattr(torch.backends, "mha"):  # nn.MultiheadAttention's fused path has no ONNX export
        torch.backends.mha.set_fastpath_enabled(False)
    kw = {{"aux_logits": False, "init_weights": False}} if name in ("googlenet", "inception_v3") else {{}}
    m = getattr(torchvision.models, name)(weights=None, **kw).eval()
    side = 299 if name == "inception_v3" else 224
    x = torch.randn(1, 3, side, side)
    oracle.onnx_export(m, (x,), out, input_names=["x"], output_names=["y"],
                       dynamic_axes={{"x": {{0: "batch"}}, "y": {{0: "batch"}}}}, opset_version=17)
"""
    t = time.time()
    env = dict(os.environ)  # PyTorch with its own cuDNN (device.sh: ONNXCOST_TORCH_LD_LIBRARY_PATH)
    if "ONNXCOST_TORCH_LD_LIBRARY_PATH" in env:
        env["LD_LIBRARY_PATH"] = env["ONNXCOST_TORCH_LD_LIBRARY_PATH"]
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=a.export_timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return name, time.time() - t, f"the export took more than {a.export_timeout} s"
    if p.returncode != 0 or not os.path.exists(out):
        lines = [l for l in (p.stderr or p.stdout).strip().splitlines() if l.strip()]
        return name, time.time() - t, (lines[-1] if lines else f"exit {p.returncode}")[:300]
    return name, time.time() - t, None


def counts(d):
    st = {s: 0 for s in ("measured", "alias", "skipped", "failed")}
    for n in d["nodes"]:
        st[n["status"]] = st.get(n["status"], 0) + 1
    st["with_counters"] = sum("counters" in n for n in d["nodes"] if n["status"] == "measured")
    return st


def replay(name, cfg):
    batch, extra = CONFIGS[cfg]
    onnx_path = os.path.join(zdir, name + ".onnx")
    out = os.path.join(zdir, f"{name}_{cfg}.json")
    bind = ["--dim", "batch=1", "--dim", "sequence=128"] if name in TEXT else ["--batch", str(batch)]
    cmd = [a.onnxcost, "replay", onnx_path, "--format", "json", "-o", out, "--reps", a.reps, "--warmup", "2",
           "--node-timeout", "60"] + bind + extra
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = "timeout", (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    wall = time.time() - t
    rec = {"model": name, "config": cfg, "exit": rc, "wall_s": round(wall, 2), "command": " ".join(cmd[1:])}
    rec["warnings"] = [l for l in err.splitlines() if "warning" in l][:40]
    rec["errors"] = [l for l in err.splitlines() if "error" in l][:10]
    if rc == 0 and os.path.exists(out):
        d = json.load(open(out))
        rec.update(counts(d))
        rec["failed_nodes"] = [{"name": n["name"], "op": n["op"], "reason": n.get("reason", ""),
                                "crash": n.get("crash", "")} for n in d["nodes"] if n["status"] == "failed"]
        rec["lost"] = [{"name": n["name"], "op": n["op"], "status": n["status"], "reason": n.get("reason", ""),
                        "crash": n["crash"]} for n in d["nodes"] if n.get("crash")]
        rec["no_counters"] = sorted({re.sub(r"'[^']*'", "'…'", n.get("reason", ""))[:120] for n in d["nodes"]
                                     if n["status"] == "measured" and "counters" not in n and n.get("reason")})
        rec["sum_median_ms"] = round(sum(n["time_ns"]["median"] for n in d["nodes"] if n["status"] == "measured")
                                     * 1e-6, 4)
        rec["device"] = d["device"].get("name")
    return rec


def write(records, exports):
    json.dump({"exports": exports, "runs": records}, open(os.path.join(a.work, "zoo.json"), "w"), indent=1)
    rows = ["| model | config | exit | wall (s) | nodes | measured (counters) | alias | skipped | failed | lost |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if "measured" in r:
            n = r["measured"] + r["alias"] + r["skipped"] + r["failed"]
            rows.append(f"| {r['model']} | {r['config']} | {r['exit']} | {r['wall_s']} | {n} | {r['measured']} "
                        f"({r['with_counters']}) | {r['alias']} | {r['skipped']} | {r['failed']} | {len(r['lost'])} |")
        else:
            rows.append(f"| {r['model']} | {r['config']} | {r['exit']} | {r.get('wall_s', '-')} | - | - | - | - | - "
                        f"| - |")
    lines = ["# Replay zoo", "", *rows, ""]
    for r in records:
        for f in r.get("failed_nodes", []):
            lines.append(f"- {r['model']} {r['config']}: failed {f['name']} ({f['op']}): {f['reason']}"
                         + (f" [{f['crash']}]" if f['crash'] else ""))
        for f in r.get("lost", []):
            if f["status"] != "failed":
                lines.append(f"- {r['model']} {r['config']}: lost counters {f['name']} ({f['op']}): {f['reason']} "
                             f"[{f['crash']}]")
        for e in r.get("errors", []):
            lines.append(f"- {r['model']} {r['config']}: {e}")
    for k, v in exports.items():
        if v.get("error"):
            lines.append(f"- export {k}: {v['error']}")
    open(os.path.join(a.work, "zoo.md"), "w").write("\n".join(lines) + "\n")


def main():
    names = [m for m in (a.models.split(",") if a.models else VISION + TEXT) if m]
    configs = [c for c in a.configs.split(",") if c]
    prev = {}
    try:
        prev = json.load(open(os.path.join(a.work, "zoo.json")))
    except (OSError, ValueError):
        pass
    exports = prev.get("exports", {})
    t = time.time()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for name, secs, err in ex.map(export, names):
            exports[name] = {"seconds": round(secs, 1), "error": err}
            print(f"export {name}: {'ok' if not err else err} ({secs:.1f} s)", flush=True)
    print(f"exports: {time.time() - t:.1f} s", flush=True)
    records = [r for r in prev.get("runs", []) if not (r["model"] in names and r["config"] in configs)]
    for cfg in configs:
        for name in names:
            if exports.get(name, {}).get("error"):
                continue
            if name in TEXT and cfg == "b1-fp32":
                continue  # 1 x 128 in every config: b32-fp32 is its FP32 run
            if a.deadline and time.time() > a.deadline:
                records.append({"model": name, "config": cfg, "exit": "not run (the call's budget is spent)"})
                continue
            r = replay(name, cfg)
            records.append(r)
            print(f"{name} {cfg}: exit {r['exit']} in {r['wall_s']} s; "
                  + (f"{r['measured']} measured, {r['failed']} failed, {len(r['lost'])} lost" if "measured" in r
                     else "no JSON"), flush=True)
            write(records, exports)
    write(records, exports)


main()
