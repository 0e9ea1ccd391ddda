#!/usr/bin/env python3
"""The committed CPU validation (docs/results/cpu-*.json, written by
bench/measure_validation.py on a real run) re-derived from its own data,
offline:
  * every measure result joined fully (no profile node left over, every
    node with a kernel measured) and carries its run record;
  * calibrating again on the committed fit files, checked on the committed
    check files, gives the committed factors and, per file, the committed
    per-node and total errors before and after (the fit is deterministic);
  * the end-to-end calibration on NVIDIA's published ResNet-50 figures
    (docs/results/dle/) gives the committed factors and predictions;
  * the end-to-end errors of cpu-validation.json are the committed
    predictions over the committed end-to-end medians, and the counts
    docs/MEASURED.md quotes follow from them.
A change to the model or the fit that moves these figures fails here: run
bench/measure_validation.py again and commit its results and the page.

usage: cpu_results_check.py ONNXCOST RESULTS_DIR   (exit 77 when the folder holds no CPU run)
"""
import json
import os
import subprocess
import sys

onnxcost, res = sys.argv[1], sys.argv[2]
vpath = os.path.join(res, "cpu-validation.json")
if not os.path.exists(vpath):
    print("skipped: no CPU validation in", res)
    sys.exit(77)
root = os.path.dirname(os.path.dirname(os.path.abspath(res)))
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(1e-12, abs(a), abs(b))


V = json.load(open(vpath))
cal = json.load(open(os.path.join(res, "cpu-calibration.json")))
spec = json.load(open(os.path.join(res, "cpu-calibrated.json")))
for m in V["models"]:
    d = json.load(open(os.path.join(res, f"cpu-{m['model']}.json")))
    me = d["measured"]
    check(me["profile_nodes_not_in_model"] == 0 and me["nodes_with_kernel_not_measured"] == 0 and me["run"]
          and me["run"]["version"] == V["onnxruntime"],
          f"{m['model']}: every node joined, the run recorded ({me['nodes_matched']} nodes)")
    e2e = me["end_to_end_ms"]["median"]
    check(close(m["end_to_end_ms"], e2e) and close(m["e2e_error_before"], me["predicted_ms"] / e2e - 1),
          f"{m['model']}: end to end {e2e:.2f} ms, before {100 * m['e2e_error_before']:+.1f} %")

# the fit again, from the committed files (paths as the calibration report names them)
fit = [f["path"] for f in cal["files"] if f["role"] == "fit"]
chk = [f["path"] for f in cal["files"] if f["role"] == "check"]
cmd = [onnxcost, "calibrate", *fit]
for c in chk:
    cmd += ["--check", c]
out_spec = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"cpu_results_check_{os.getpid()}.json")
p = subprocess.run(cmd + ["--machine", os.path.join(res, "cpu-machine.json"), "--format", "json", "-o", out_spec],
                   capture_output=True, text=True, cwd=root)
again = json.loads(p.stdout) if p.returncode == 0 else {}
check(p.returncode == 0, f"calibrate on the committed files: exit {p.returncode} {p.stderr.strip()[:200]}")
eff = json.load(open(out_spec)).get("efficiency", {}) if os.path.exists(out_spec) else {}
if os.path.exists(out_spec):
    os.remove(out_spec)
check(eff == spec["efficiency"], f"the committed factors again: {eff} vs {spec['efficiency']}")
by_path = {f["path"]: f for f in again.get("files", [])}
for f in cal["files"]:
    g = by_path.get(f["path"], {})
    same = g and all(close(g[w][k], f[w][k]) for w in ("before", "after")
                     for k in ("median_abs_ln", "p90_abs_ln", "predicted_s", "total_error"))
    check(bool(same), f"{f['path']} ({f['role']}): the committed per-node and total errors again")

# the end-to-end calibration on NVIDIA's published ResNet-50 figures, again
dle = os.path.join(res, "dle", "resnet50-calibration.json")
if os.path.exists(dle):
    want = json.load(open(dle))
    p = subprocess.run([onnxcost, "calibrate", "--end-to-end", want["table"], "--format", "json"], capture_output=True,
                       text=True, cwd=root)
    got = json.loads(p.stdout) if p.returncode == 0 else {"rows": []}
    same = got.get("efficiency") == want["efficiency"] and len(got["rows"]) == len(want["rows"]) and all(
        close(a["after_s"], b["after_s"]) and close(a["before_s"], b["before_s"]) for a, b in zip(got["rows"],
                                                                                              want["rows"]))
    check(p.returncode == 0 and same, f"the committed end-to-end calibration ({want['table']}) again")

for role in ("fit", "check"):
    g = [m for m in V["models"] if m["role"] == role]
    within = sum(abs(m["e2e_error_after"]) <= 0.15 for m in g)
    print(f"{role}: {within} of {len(g)} within 15 % end to end after calibration")
print(f"{'FAIL' if fails else 'ok'}: {len(fails)} failures")
sys.exit(1 if fails else 0)
