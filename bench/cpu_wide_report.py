"""cpu_wide.py's analysis: per thread count, calibrate and build kernel
tables on the fit models' records, predict every record from its saved graph
and profile three ways (the probed machine alone; calibrated; calibrated with
kernel tables), and write the summary (docs/results/cpu-wide.{json,md})."""
import io
import json
import math
import os
import statistics
import tarfile

from kernel_tables_loo import run  # noqa: E402 (bench/: the same runner)

WAYS = ("probed", "calibrated", "tables")


def dims(binds):
    out = []
    for k, v in (binds or {}).items():
        out += ["--dim", f"{k}={v}"]
    return out


def spec_for(a, machine, fit, t):
    """The calibrated spec, and the same with kernel tables, from the fit records at t threads: the two commands a
    user runs (calibrate, then tables on the calibrated spec; each record analyzed at the dims it ran at)."""
    work = os.path.join(a.out, "spec" + (f"-{a.tag}" if a.tag else ""))
    os.makedirs(work, exist_ok=True)
    cal = os.path.join(work, f"calibrated-t{t}.json")
    run(a.onnxcost, "calibrate", *fit, "--machine", machine, "-o", cal, "--format", "json")
    tab = os.path.join(work, f"tables-t{t}.json")
    run(a.onnxcost, "tables", *fit, "--gpu-spec", cal, "-o", tab, "--format", "json")
    return cal, tab


def predict(a, rec, device):
    """The record analyzed again on device (a spec) at the thread count it ran with."""
    d = json.load(open(rec))
    m = d["measured"]
    threads = ["--threads", str(m["run"]["intra_op_threads"])] if "--threads" not in device else []
    doc = json.loads(run(a.onnxcost, d["model"]["path"], "--measured", m["profile"], *dims(d.get("bindings")),
                         *device, *threads, "--format", "json", "-q"))
    nodes = [(n["op_type"], n["measured"]["median_us"], n["measured"]["predicted_over_measured"]) for n in doc["nodes"]
             if n.get("measured") and n["measured"].get("predicted_over_measured") and n["measured"]["median_us"] > 0]
    total = sum(x[1] for x in nodes) or 1
    ln = [abs(math.log(r)) for _, _, r in nodes]
    major = [abs(math.log(r)) for _, us, r in nodes if us >= 0.01 * total]  # 1 % of the record's node time or more
    # by op type: measured and predicted microseconds (the misses that move the end to end)
    ops = {}
    for op, us, r in nodes:
        o = ops.setdefault(op, [0.0, 0.0])
        o[0] += us
        o[1] += us * r
    return doc["measured"]["predicted_ms"], ln, major, ops


def session_dir(out, kind, s):
    """measured/ or saved/ of measuring session s (1: the first, measured/; s: measured-sS/)."""
    return os.path.join(out, kind if s == 1 else f"{kind}-s{s}")


def record(out, t, name, b):
    """The record of (model, batch, threads) of its sessions with the least end-to-end median (another tenant's
    load only adds time, so the machine's own speed is its fastest session's), the slowest session's median over
    it (1 with one session) and the sessions; (None, None, 0) where none was measured."""
    found = []
    for s in range(1, 10):
        f = os.path.join(session_dir(out, "measured", s), f"t{t}", f"{name}_b{b}.json")
        if os.path.exists(f):
            found.append((json.load(open(f))["measured"]["end_to_end_ms"]["median"], f))
    if not found:
        return None, None, 0
    found.sort()
    return found[0][1], found[-1][0] / found[0][0], len(found)


def pct(x):
    return f"{100 * x:+.1f} %"


def report(a, models, role, files, missing, batches, threads, sweep):
    machine = os.path.join(a.out, "machine.json")
    rows, families, majors, by_op, cals = [], {}, {}, {}, {}
    # one calibration on the fit records of every thread count together
    every = [record(a.out, t, m[0], b)[0] for t in threads for i, m in enumerate(models) if role(i) == "fit"
             for b in batches] + [record(a.out, t, sweep, 1)[0] for t in threads]
    joint = os.path.join(a.out, "spec" + (f"-{a.tag}" if a.tag else ""), "calibrated-joint.json")
    os.makedirs(os.path.dirname(joint), exist_ok=True)
    run(a.onnxcost, "calibrate", *[f for f in every if f], "--machine", machine, "-o", joint,
        "--format", "json")
    # and its kernel tables from the same records, each table of one thread count: one spec for every count
    joint_tables = joint.replace("calibrated-joint", "tables-joint")
    run(a.onnxcost, "tables", *[f for f in every if f], "--gpu-spec", joint, "-o", joint_tables, "--format", "json")
    for t in threads:
        recs, ratio, n_sessions = {}, {}, {}
        for i, (name, src, fam, binds) in enumerate(models):
            for b in batches:
                f, r, k = record(a.out, t, name, b)
                if f:
                    recs[(i, b)], ratio[(i, b)], n_sessions[(i, b)] = f, r, k
        fit = [f for (i, b), f in sorted(recs.items()) if role(i) == "fit"] + [record(a.out, t, sweep, 1)[0]]
        fit = [f for f in fit if f]
        cal, tab = spec_for(a, machine, fit, t)
        cals[t] = cal
        for (i, b), f in sorted(recs.items()):
            name, src, fam, binds = models[i]
            d = json.load(open(f))
            m = d["measured"]
            e2e = m["end_to_end_ms"]["median"]
            row = {"model": name, "family": fam, "role": role(i), "batch": b, "threads": t, "end_to_end_ms": e2e,
                   "nodes": m["nodes"], "pass_median_ratio": (m.get("run") or {}).get("pass_median_ratio"),
                   "stopped": (m.get("run") or {}).get("stopped"), "sessions": n_sessions[(i, b)],
                   "session_ratio": ratio[(i, b)], "file": f}
            for way, dev in zip(WAYS, (["--machine", machine], ["--gpu-spec", cal], ["--gpu-spec", tab])):
                ms, ln, major, ops = predict(a, f, dev)
                row[way + "_ms"] = ms
                row[way + "_error"] = ms / e2e - 1
                row[way + "_node_median_ln"] = statistics.median(ln) if ln else None
                row[way + "_major_median_ln"] = statistics.median(major) if major else None
                if row["role"] == "check":
                    families.setdefault((fam, way), []).extend(ln)
                    majors.setdefault((fam, way), []).extend(major)
                    for op, (mus, pus) in ops.items():
                        o = by_op.setdefault((way, op), [0.0, 0.0, 0])
                        o[0] += mus
                        o[1] += abs(pus - mus)
                        o[2] += 1
            rows.append(row)
            print(f"t{t} b{b} {name:30s} {row['role']:5s} {e2e:9.2f} ms: " + ", ".join(
                f"{w} {pct(row[w + '_error'])} ({row[w + '_node_median_ln'] or 0:.2f})" for w in WAYS), flush=True)
    # one calibration, at the most threads, predicting the records at fewer (--threads N); and the one
    # calibration on every thread count's fit records predicting every record at its own
    top = max(threads)
    for r in rows:
        if r["threads"] != top:
            ms, _, _, _ = predict(a, r["file"], ["--gpu-spec", cals[top], "--threads", str(r["threads"])])
            r[f"calibrated_at_{top}_error"] = ms / r["end_to_end_ms"] - 1
        ms, _, _, _ = predict(a, r["file"], ["--gpu-spec", joint])
        r["joint_error"] = ms / r["end_to_end_ms"] - 1
        ms, _, _, _ = predict(a, r["file"], ["--gpu-spec", joint_tables])
        r["joint_tables_error"] = ms / r["end_to_end_ms"] - 1
    check = [r for r in rows if r["role"] == "check"]
    summary_sessions = {f"t{t}": {"records": len(v), "median_ratio": statistics.median(v) if v else None,
                                  "over_1_10": sum(x > 1.10 for x in v), "max_ratio": max(v) if v else None}
                        for t in threads for v in [[r["session_ratio"] for r in rows if r["threads"] == t]]}
    cross = [abs(r[f"calibrated_at_{top}_error"]) for r in check if r["threads"] != top]
    summary = {"cross_threads": {"calibrated_at": top, "records": len(cross),
                                 "within_10": sum(e <= 0.10 for e in cross),
                                 "within_15": sum(e <= 0.15 for e in cross),
                                 "median_abs_error": statistics.median(cross) if cross else None}}
    summary["sessions"] = summary_sessions
    for key in ("joint", "joint_tables"):
        summary[key] = {"by_threads": {
            f"t{t}": {"records": len(e), "within_10": sum(x <= 0.10 for x in e), "within_15": sum(x <= 0.15 for x in e),
                      "median_abs_error": statistics.median(e) if e else None}
            for t in threads for e in [[abs(r[key + "_error"]) for r in check if r["threads"] == t]]}}
    summary["joint"]["efficiency"] = json.load(open(joint))["efficiency"]
    for w in WAYS:
        errs = [abs(r[w + "_error"]) for r in check]
        summary[w] = {"records": len(errs), "within_10": sum(e <= 0.10 for e in errs),
                      "within_15": sum(e <= 0.15 for e in errs), "median_abs_error": statistics.median(errs),
                      "by": {f"t{t} b{b}": {"records": len(s), "within_10": sum(e <= 0.10 for e in s),
                                              "within_15": sum(e <= 0.15 for e in s)}
                             for t in threads for b in batches
                             for s in [[abs(r[w + "_error"]) for r in check if r["threads"] == t and r["batch"] == b]]}}
    fam = {f"{k[0]} | {k[1]}": {"nodes": len(v), "median_abs_ln": statistics.median(v) if v else None,
                                "major_nodes": len(majors.get(k, [])),
                                "major_median_abs_ln": statistics.median(majors[k]) if majors.get(k) else None}
           for k, v in sorted(families.items())}
    # where the unseen records' node-time misses are, by op type (the tables way): |predicted - measured| summed
    miss_total = sum(v[1] for (w, _), v in by_op.items() if w == "tables") or 1
    ops = sorted(((op, v) for (w, op), v in by_op.items() if w == "tables"), key=lambda x: -x[1][1])
    miss = [{"op": op, "measured_ms": v[0] / 1e3, "abs_miss_ms": v[1] / 1e3, "share_of_misses": v[1] / miss_total,
             "records": v[2]} for op, v in ops[:12]]
    first = json.load(open(next(iter(sorted(os.path.join(a.out, "measured", f"t{threads[0]}", x)
                                                for x in os.listdir(os.path.join(a.out, "measured", f"t{threads[0]}")))))))
    run_ = first["measured"]["run"]
    doc = {"cpu": run_["cpu"], "onnxruntime": run_["version"], "threads": list(threads), "batches": list(batches),
           "models": [m[0] for m in models], "fit": [m[0] for i, m in enumerate(models) if role(i) == "fit"],
           "batch_8_missing": missing, "summary": summary, "node_error_by_family": fam, "misses_by_op": miss,
           "records": rows}
    os.makedirs(a.results, exist_ok=True)
    kept = [r.pop("file") for r in rows]
    sweeps = [f for f in (record(a.out, t, sweep, 1)[0] for t in threads) if f]
    doc["runs_sweep"] = [os.path.relpath(f, a.out) for f in sweeps]
    stem = os.path.join(a.results, "cpu-wide" + (f"-{a.tag}" if a.tag else ""))
    json.dump(doc, open(stem + ".json", "w"), indent=1)
    write_md(doc, stem + ".md")
    if not a.tag:
        pack(a, os.path.join(a.results, "cpu-wide-measured.tgz"), kept + sweeps)
    print(open(stem + ".md").read())


def pack(a, path, kept):
    """The data behind the summary: every session's measure results, the graphs ONNX Runtime ran (no weights) in
    the kept sessions (kept: their records' files), the probed machine, the calibrated specs; paths relative to the
    checkout. The profiles (650 MB a session) are left out."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    names = [os.path.join(a.out, n) for n in ("machine.json", "missing.json")]
    graphs = {os.path.dirname(json.load(open(f))["model"]["path"]) for f in kept}
    tops = sorted(d for d in os.listdir(a.out) if d in ("measured", "spec") or d.startswith("measured-s"))
    for top in tops:
        for dirpath, _, files in sorted(os.walk(os.path.join(a.out, top))):
            names += [os.path.join(dirpath, n) for n in sorted(files) if n.endswith(".json")]
    for g in sorted(graphs):
        names += [os.path.join(g, n) for n in sorted(os.listdir(g)) if n.endswith(".ort.onnx")]
    keep = {os.path.abspath(f) for f in kept}
    with tarfile.open(path, "w:gz") as tar:
        for full in names:
            data = open(full, "rb").read()
            top = os.path.relpath(full, a.out).split(os.sep)[0]
            if top.startswith("measured") and os.path.abspath(full) not in keep:  # a slower session: its timing
                d = json.loads(data)["measured"]
                data = json.dumps({"measured": {k: d.get(k) for k in ("end_to_end_ms", "sum_of_node_medians_ms",
                                                                       "run")}}).encode()
            if full.endswith(".json"):
                data = data.replace(root.encode(), b"")
            info = tarfile.TarInfo(os.path.relpath(full, a.out))
            info.size, info.mtime = len(data), 0
            tar.addfile(info, io.BytesIO(data))


def write_md(doc, path):
    s = doc["summary"]
    n_models = len(doc["models"])
    lines = [f"CPU: {doc['cpu']}; ONNX Runtime {doc['onnxruntime']}, optimization level all; batch "
             f"{' and '.join(map(str, doc['batches']))}, {' and '.join(map(str, doc['threads']))} intra-op threads; "
             "each record the median of `--reps auto` (at most 10 s) after 3 warm-up runs, measured in "
             f"{max(r['sessions'] for r in doc['records'])} sessions (each after the whole of the one before), "
             "the fastest session's kept: another tenant's load only adds time.", "",
             "The machine's noise between sessions, the slowest session's end to end over the fastest's: " + "; ".join(
                 f"{k[1:]} thread{'s' if k != 't1' else ''}: median {v['median_ratio']:.3f}, {v['over_1_10']} of "
                 f"{v['records']} records over 1.10, at most {v['max_ratio']:.2f}"
                 for k, v in doc["summary"]["sessions"].items()) + ".", "",
             f"{n_models} models; fit on a third of them ({len(doc['fit'])}: {', '.join(doc['fit'])}; "
             "docs/MEASURED.md says why these), "
             "per thread count, at both batches; every other record is unseen. "
             + (f"Beside them every fit takes the machine's runs sweep (`onnxcost probe --sweep-model`, 72 broadcasts "
                f"and normalizations over short spans and rows, 6 chains of 17 small ops and 69 small products, "
                f"measured like a model at each thread count: {', '.join(doc['runs_sweep'])}), which fits a kernel's "
                f"cost per run (and the tables each op's own) and gives the tables each small op's cost per node and "
                f"the products of N and K under 64 the models lack (docs/MODEL.md)."
                if doc.get("runs_sweep") else ""), ""]
    if doc["batch_8_missing"]:
        lines += ["Batch 8 not run (ONNX Runtime refused the batch-8 copy): " +
                  "; ".join(f"{k} ({v})" for k, v in doc["batch_8_missing"].items()), ""]
    lines += ["| way | unseen records | within 10 % | within 15 % | median \\|error\\| | " +
              " | ".join(f"within 15 %, {k}" for k in s["tables"]["by"]) + " |",
              "|---|---:|---:|---:|---:|" + "---:|" * len(s["tables"]["by"])]
    for w in WAYS:
        x = s[w]
        lines.append(f"| {w} | {x['records']} | {x['within_10']} ({100 * x['within_10'] / x['records']:.0f} %) | "
                     f"{x['within_15']} ({100 * x['within_15'] / x['records']:.0f} %) | "
                     f"{100 * x['median_abs_error']:.1f} % | " +
                     " | ".join(f"{v['within_15']}/{v['records']}" for v in x["by"].values()) + " |")
    j = s.get("joint")
    if j:
        lines += ["", "One calibration for every thread count: fitted on the fit records at " +
                  " and ".join(k[1:] for k in j["by_threads"]) + " threads together, each record at the thread "
                  "count it ran with (`calibrate` fits a record on the CPU at its threads; a prediction takes "
                  "`--threads N`); the unseen records: " + "; ".join(
                      f"{k[1:]} thread{'s' if k != 't1' else ''}: {v['within_10']} of {v['records']} within 10 %, "
                      f"{v['within_15']} within 15 %, median error {100 * v['median_abs_error']:.1f} %"
                      for k, v in j["by_threads"].items()) + "."]
    jt = s.get("joint_tables")
    if jt:
        lines += ["", "The same spec with kernel tables from the same records (`onnxcost tables` on them all, on the "
                  "joint calibration: each table of one thread count, a prediction at `--threads N` reading N's): " +
                  "; ".join(f"{k[1:]} thread{'s' if k != 't1' else ''}: {v['within_10']} of {v['records']} within "
                            f"10 %, {v['within_15']} within 15 %, median error {100 * v['median_abs_error']:.1f} %"
                            for k, v in jt["by_threads"].items()) + "."]
    x = s["cross_threads"]
    if x["records"]:
        lines += ["", f"A calibration at one thread count for another: calibrated at {x['calibrated_at']} threads (the spec "
                      f"above), predicting the unseen records at fewer with `--threads N`: {x['records']} records, "
                      f"{x['within_10']} within 10 %, {x['within_15']} within 15 %, median error "
                      f"{100 * x['median_abs_error']:.1f} %."]
    lines += ["", "Per-node median |ln(predicted/measured)| over the unseen records' nodes, by model family: all "
                  "nodes, and the major ones (1 % of their record's node time or more):", "",
              "| family | nodes | probed | calibrated | tables | major nodes | probed | calibrated | tables |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    fams = sorted({k.split(" | ")[0] for k in doc["node_error_by_family"]})
    for f in fams:
        g = {w: doc["node_error_by_family"].get(f"{f} | {w}") for w in WAYS}
        lines.append(f"| {f} | {g['tables']['nodes']} | " +
                     " | ".join(f"{g[w]['median_abs_ln']:.2f}" for w in WAYS) + f" | {g['tables']['major_nodes']} | " +
                     " | ".join(f"{g[w]['major_median_abs_ln']:.2f}" for w in WAYS) + " |")
    lines += ["", "Where the misses are: over the unseen records, by op type, the measured node time and the "
                  "summed |predicted - measured| with the tables, as a share of all such misses:", "",
              "| op | records | measured (ms) | missed (ms) | share of the misses |", "|---|---:|---:|---:|---:|"]
    for m in doc["misses_by_op"]:
        lines.append(f"| {m['op']} | {m['records']} | {m['measured_ms']:.1f} | {m['abs_miss_ms']:.1f} | "
                     f"{100 * m['share_of_misses']:.1f} % |")
    lines += ["", "Every record (error: predicted end to end over measured, minus 1; in brackets the per-node "
                  "median |ln|):", "",
              "| model | family | role | threads | batch | measured (ms) | sessions' ratio | probed | calibrated | tables "
              "| one calibration | one calibration, tables |",
              "|---|---|---|---:|---:|---:|---:|---|---|---|---|---|"]
    for r in doc["records"]:
        lines.append(f"| {r['model']} | {r['family']} | {r['role']} | {r['threads']} | {r['batch']} | "
                     f"{r['end_to_end_ms']:.2f} | {r['session_ratio']:.2f} | " +
                     " | ".join(f"{pct(r[w + '_error'])} ({r[w + '_node_median_ln'] or 0:.2f})" for w in WAYS) +
                     f" | {pct(r['joint_error'])} | {pct(r['joint_tables_error'])} |")
    open(path, "w").write("\n".join(lines) + "\n")
