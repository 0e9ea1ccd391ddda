#!/usr/bin/env python3
"""onnxcost annotate against the onnx package and ONNX Runtime.

For each model (the MNIST net, a plain-PyTorch GPT-2 exported with dynamic
batch and sequence, the same GPT-2 with its weights in an external data
file, the ORT-fused tiny GPT-2 of the corpus, a sample of the corpus):
  - the annotated file passes onnx.checker (full_check where the original does);
  - every initializer is byte-identical, and external data still points to
    its file, which is not rewritten; a file protobuf serialized stays
    exactly what protobuf would serialize (fields in number order);
  - ONNX Runtime gives bit-identical outputs on both files for the same inputs
    when it runs the graph as written (optimizations off); with its optimizer
    on, the added shapes let it fuse more (on GPT-2: MatMul+Add into Gemm with
    concrete shapes, SkipLayerNormalization and FusedMatMul with symbolic
    ones), so outputs agree to float32 rounding, and bit for bit with
    --no-shapes, which adds no value_info;
  - each value_info shape added, its formulas evaluated at the run's binding,
    equals the shape ONNX Runtime produces for that tensor at run time;
  - every node carries onnxcost.params, the model's metadata totals equal the
    CLI's JSON report (formulas included), and annotating the annotated file
    gives the same bytes again (an earlier annotation is replaced, not repeated);
  - fields protobuf does not know, of the fixed-width wire types, in the
    model and in a node, are carried through byte for byte.
A model may be refused (exit 2, nothing written) only when tests/refused.txt
lists it; a listed file that annotates fails the test. At least MIN_ANNOTATED
files must be annotated and checked, MIN_ORT of them against ONNX Runtime.
Exit 77, before any case runs, when onnx, onnxruntime or torch is missing.
usage: annotate_check.py --onnxcost BIN --fixtures DIR
"""
import argparse
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch  # noqa: F401  (tests/oracle/transformers.py exports the GPT-2 cases with it)
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
REFUSED_LIST = os.path.join(HERE, "..", "refused.txt")
# what a run must have checked (75 files annotated, 15 of them run under ONNX
# Runtime, 1 refused, on 2026-11-25)
MIN_ANNOTATED = 72
MIN_ORT = 14
failures = 0
counts = {"annotated": 0, "ort": 0, "refused": 0}
refused = {}  # path under fixtures/ -> reason (tests/refused.txt)
fixtures_dir = None


def varint(v):
    """v as a protobuf varint"""
    out = b""
    while True:
        low, v = v & 0x7F, v >> 7
        out += bytes([low | (0x80 if v else 0)])
        if not v:
            return out


def check(what, ok, detail=""):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL: {what} {detail}")
    return ok


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def dim_value(d, binding):
    """A dim of a value_info at a binding: its number, its formula evaluated, or None."""
    if d.HasField("dim_value"):
        return d.dim_value
    if d.HasField("dim_param"):
        expr = d.dim_param.replace("^", "**").removeprefix("~")  # ~: fitted, evaluated all the same
        if not re.fullmatch(r"[\w\s*+\-()]+", expr):
            return None
        try:
            return int(eval(expr, {"__builtins__": {}}, dict(binding)))
        except NameError:
            return None
    return None


def feeds_for(model, binding, rng):
    feeds = {}
    inits = {i.name for i in model.graph.initializer}
    for i in model.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else binding.get(d.dim_param, 1) for d in t.shape.dim]
        np_type = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(np_type, np.integer):
            feeds[i.name] = rng.integers(0, 50, size=shape).astype(np_type)
        elif np_type == np.bool_:
            feeds[i.name] = np.ones(shape, dtype=np.bool_)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np_type)
    return feeds


def with_outputs(model, names):
    """The model with these tensors added as graph outputs (type left open)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=n))
    return m


def initializer_bytes(model):
    return {t.name: t.SerializeToString() for t in model.graph.initializer}


def annotate_case(onnxcost, path, out_dir, binding, dims_flags=(), run_ort=True):
    name = os.path.basename(path)
    out = os.path.join(out_dir, "annotated_" + name)
    r = run([onnxcost, "annotate", path, "-o", out, *dims_flags])
    rel = os.path.relpath(os.path.abspath(path), fixtures_dir).replace(os.sep, "/")
    if rel in refused:  # a file known to be refused: annotate refuses it as the analysis does
        check(f"{name}: refused (listed in tests/refused.txt: {refused[rel]})", r.returncode == 2
              and run([onnxcost, path, "-q", *dims_flags]).returncode == 2 and not os.path.exists(out),
              f"annotate exit {r.returncode}: still refused? if not, remove it from tests/refused.txt")
        counts["refused"] += 1
        return
    if not check(f"{name}: annotate exits 0", r.returncode == 0, r.stderr):
        return
    counts["annotated"] += 1
    orig = onnx.load(path, load_external_data=False)
    ann = onnx.load(out, load_external_data=False)
    # checker
    def passes(model, full):
        try:
            onnx.checker.check_model(model, full_check=full)
            return True, ""
        except Exception as e:
            return False, str(e)[:300]
    full = passes(orig, True)[0]
    if full or passes(orig, False)[0]:  # what the original passes, the annotated file passes
        ok, why = passes(ann, full)
        check(f"{name}: onnx.checker (full_check={full})", ok, why)
    # weights as bytes, external data untouched
    check(f"{name}: initializers byte-identical", initializer_bytes(orig) == initializer_bytes(ann))
    # fields in the order a serializer writes them: a canonical file stays canonical
    if open(path, "rb").read() == orig.SerializeToString():
        check(f"{name}: canonical, as protobuf serializes it", open(out, "rb").read() == ann.SerializeToString())
    # nodes, metadata, totals
    check(f"{name}: same nodes", [(n.op_type, list(n.input), list(n.output)) for n in orig.graph.node]
          == [(n.op_type, list(n.input), list(n.output)) for n in ann.graph.node])
    check(f"{name}: every node has onnxcost.params",
          all(any(p.key == "onnxcost.params" for p in n.metadata_props) for n in ann.graph.node))
    meta = {p.key: p.value for p in ann.metadata_props}
    report = json.loads(run([onnxcost, path, "--format", "json", "-q", *dims_flags]).stdout)
    # each node's figures are its own: the report's node of the same name (file order and
    # execution order may differ)
    by_name = {n["name"]: n for n in report["nodes"] if n.get("name")}
    names = [n.name for n in ann.graph.node if n.name]
    if len(set(names)) == len(names):
        wrong = [f"{n.name}: {k} {md.get('onnxcost.' + k)} != {by_name[n.name][k]}"
                 for n in ann.graph.node if n.name in by_name
                 for md in [{p.key: p.value for p in n.metadata_props}]
                 for k in ("params", "macs", "flops")
                 if by_name[n.name].get(k) is not None and md.get("onnxcost." + k, "").isdigit()
                 and md["onnxcost." + k] != str(by_name[n.name][k])]  # a formula: the totals' check covers it
        check(f"{name}: each node's figures its own (by name)", not wrong, "; ".join(wrong[:5]))
    symbolic = report.get("symbolic") or {}
    sym = symbolic.get("totals", {})
    if symbolic:  # a formula fitted, not proven, is marked so in the file (~), as in the report
        check(f"{name}: onnxcost.formulas", meta.get("onnxcost.formulas", "").startswith(
            "proven" if symbolic.get("proven") else "fitted"), meta.get("onnxcost.formulas"))
    check(f"{name}: metadata params", meta.get("onnxcost.params") == str(report["totals"]["params"]))
    for key in ("macs", "flops"):
        want = sym[key] if key in sym else report["totals"][key]
        if want is None:  # not a polynomial in the unbound dims: left out, not a number at 1
            check(f"{name}: metadata {key} left out", "onnxcost." + key not in meta)
            continue
        if isinstance(want, str) and not symbolic.get("totals_proven"):
            want = "~" + want
        want = str(want) if report["totals"]["complete"] else ">=" + str(want)
        check(f"{name}: metadata {key}", meta.get("onnxcost." + key) == want, f"{meta.get('onnxcost.' + key)} != {want}")
    check(f"{name}: onnxcost.complete", meta.get("onnxcost.complete", "").startswith(
        "true" if report["totals"]["complete"] else "false"))
    # idempotent
    again = os.path.join(out_dir, "again_" + name)
    r = run([onnxcost, "annotate", out, "-o", again, "-q", *dims_flags])
    check(f"{name}: annotating again gives the same bytes", r.returncode == 0
          and open(again, "rb").read() == open(out, "rb").read())
    os.remove(again)
    added = [v for v in ann.graph.value_info if v.name not in {x.name for x in orig.graph.value_info}]
    if not run_ort:
        return len(added)
    # ONNX Runtime: bit-identical outputs, value_info shapes against run-time shapes
    rng = np.random.default_rng(0)
    feeds = feeds_for(orig, binding, rng)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    def outputs(p, level):
        so.graph_optimization_level = level
        return ort.InferenceSession(p, so, providers=["CPUExecutionProvider"]).run(None, feeds)

    def same(a, b):
        return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
                                        for x, y in zip(a, b))
    level = ort.GraphOptimizationLevel
    # the graph computes the same: bit-identical when ORT runs it as written
    check(f"{name}: ORT outputs bit-identical (graph optimizations off)",
          same(outputs(path, level.ORT_DISABLE_ALL), outputs(out, level.ORT_DISABLE_ALL)))
    # at ORT's default level the shapes let it fuse more (SkipLayerNormalization,
    # FusedMatMul): the same to float32 rounding; with --no-shapes bit-identical
    a, b = outputs(path, level.ORT_ENABLE_ALL), outputs(out, level.ORT_ENABLE_ALL)
    check(f"{name}: ORT outputs equal to rounding (all optimizations)", len(a) == len(b) and all(
        x.shape == y.shape and np.allclose(x, y, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(x).max(initial=0))))
        for x, y in zip(a, b) if x.dtype.kind == "f") and all(
        x.tobytes() == y.tobytes() for x, y in zip(a, b) if x.dtype.kind != "f"))
    costs_only = os.path.join(out_dir, "costs_only_" + name)
    r = run([onnxcost, "annotate", path, "-o", costs_only, "--no-shapes", "-q", *dims_flags])
    check(f"{name}: --no-shapes adds no value_info, ORT bit-identical (all optimizations)", r.returncode == 0 and
          len(onnx.load(costs_only, load_external_data=False).graph.value_info) == len(orig.graph.value_info) and
          same(a, outputs(costs_only, level.ORT_ENABLE_ALL)))
    os.remove(costs_only)
    probe = with_outputs(onnx.load(path), [v.name for v in added])
    sess = ort.InferenceSession(probe.SerializeToString(), so, providers=["CPUExecutionProvider"])
    got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    wrong, compared = [], 0
    for v in added:
        dims = v.type.tensor_type.shape.dim
        ours = [dim_value(d, binding) for d in dims]
        if v.name not in got or None in ours:
            continue
        compared += 1
        if tuple(ours) != got[v.name].shape:
            wrong.append((v.name, ours, got[v.name].shape))
    check(f"{name}: value_info shapes equal ORT's run-time shapes ({compared} of {len(added)} compared)",
          not wrong and compared > 0.9 * len(added), str(wrong[:3]))
    counts["ort"] += 1
    print(f"{name}: {len(ann.graph.node)} nodes, {len(added)} shapes added, {compared} equal to ORT's at {binding}")
    return len(added)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    oc = args.onnxcost
    global fixtures_dir
    fixtures_dir = os.path.abspath(args.fixtures)
    for line in open(REFUSED_LIST):
        if line.strip() and not line.startswith("#"):
            rel, _, why = line.strip().partition(" ")
            refused[rel] = why
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "out")
        os.mkdir(out_dir)
        annotate_case(oc, os.path.join(args.fixtures, "mnist", "torchsummary_net.onnx"), out_dir, {"batch": 3})
        annotate_case(oc, os.path.join(args.fixtures, "mnist", "torchsummary_net.onnx"), out_dir, {"batch": 5},
                      ("--batch", "5", "--gpu", "h100"))

        # fields protobuf does not know (a later schema's), of the fixed-width wire types (8 bytes, 4 bytes),
        # in the model and in a node: carried through as they are, everything else checked as above
        unknown = (varint(99 << 3 | 1) + struct.pack("<Q", 0x1122334455667788) +
                   varint(98 << 3 | 5) + struct.pack("<I", 0xDEADBEEF))
        m = onnx.load(os.path.join(args.fixtures, "mnist", "torchsummary_net.onnx"))
        node = onnx.NodeProto()
        node.ParseFromString(m.graph.node[0].SerializeToString() + unknown)
        m.graph.node[0].CopyFrom(node)
        odd = os.path.join(tmp, "unknown_fields.onnx")
        with open(odd, "wb") as f:
            f.write(m.SerializeToString() + unknown)
        annotate_case(oc, odd, out_dir, {"batch": 3})
        ann = os.path.join(out_dir, "annotated_unknown_fields.onnx")
        kept = open(ann, "rb").read().count(unknown) if os.path.exists(ann) else 0
        check("unknown fields of the fixed-width wire types kept, in the model and in a node", kept == 2, f"{kept}")

        # a node the exporter wrote a doc_string for: annotate_case checks everything as above (idempotent
        # included); the exporter's text stays first, onnxcost's after a blank line
        m = onnx.load(os.path.join(args.fixtures, "mnist", "torchsummary_net.onnx"))
        mine = "exporter's note: conv 1"
        m.graph.node[0].doc_string = mine
        documented = os.path.join(tmp, "documented.onnx")
        onnx.save(m, documented)
        annotate_case(oc, documented, out_dir, {"batch": 3})
        ann = onnx.load(os.path.join(out_dir, "annotated_documented.onnx"), load_external_data=False)
        doc = ann.graph.node[0].doc_string
        check("a node's own doc_string kept first, onnxcost's after it", doc.startswith(mine + "\n\nonnxcost: ") and
              doc.count("onnxcost: ") == 1, repr(doc[:120]))

        gpt2 = os.path.join(tmp, "gpt2.onnx")
        r = run([sys.executable, os.path.join(HERE, "transformers.py"), "gpt2", gpt2, "--layers", "2"])
        check("gpt2 export", r.returncode == 0, r.stderr[-500:])
        annotate_case(oc, gpt2, out_dir, {"batch": 2, "sequence": 7})
        annotate_case(oc, gpt2, out_dir, {"batch": 2, "sequence": 7}, ("--dim", "batch=2", "--dim", "sequence=7"))

        # external data: the weights stay in their file, which is not touched
        ext_dir = os.path.join(tmp, "ext")
        os.mkdir(ext_dir)
        m = onnx.load(gpt2)
        ext = os.path.join(ext_dir, "gpt2_ext.onnx")
        onnx.save(m, ext, save_as_external_data=True, location="gpt2_ext.data")
        del m
        data = os.path.join(ext_dir, "gpt2_ext.data")
        before = os.stat(data).st_mtime_ns, os.path.getsize(data)
        annotate_case(oc, ext, ext_dir, {"batch": 1, "sequence": 5})
        check("external data file not rewritten", (os.stat(data).st_mtime_ns, os.path.getsize(data)) == before)
        ann = onnx.load(os.path.join(ext_dir, "annotated_gpt2_ext.onnx"), load_external_data=False)
        check("external data still external", all(
            t.data_location == onnx.TensorProto.EXTERNAL for t in ann.graph.initializer if t.dims and
            np.prod(t.dims) > 1024))
        check("annotated file small (weights not copied in)",
              os.path.getsize(os.path.join(ext_dir, "annotated_gpt2_ext.onnx")) < 2 * os.path.getsize(ext) + 2**20)
        r = run([oc, "annotate", ext, "-o", os.path.join(out_dir, "elsewhere.onnx")])
        check("annotating elsewhere warns that the data file stays behind",
              r.returncode == 0 and "gpt2_ext.data" in r.stderr and "copy the data" in r.stderr, r.stderr)

        # the corpus: the ORT-fused tiny GPT-2 and a sample that ONNX Runtime runs
        corpus = sorted(glob.glob(os.path.join(args.fixtures, "corpus", "*", "*.onnx")))
        for path in corpus:
            base = os.path.basename(path)
            if "gpt2" in base or "light_" in base or "simple_cnn" in base:
                dims = {"batch_size": 1, "seq_len": 3, "past_seq_len": 4, "total_seq_len": 7, "N": 1,
                        "batch": 1, "sequence": 3}
                flags = [f for k in ("batch_size", "seq_len", "past_seq_len", "total_seq_len")
                         if "gpt2" in base for f in ("--dim", f"{k}={dims[k]}")]
                annotate_case(oc, path, out_dir, dims, flags)
        # every corpus file annotates and passes the checker, run or not
        for path in corpus:
            annotate_case(oc, path, out_dir, {}, run_ort=False)

        # nodes listed out of execution order: each keeps its own figures, worked by hand:
        # a = MatMul(x [2,8], w [8,8]) 128 MACs, 64 params; b = MatMul(a, w2 [8,4]) 64 MACs,
        # 32 params; c = Relu(b) 8 FLOPs; the file lists b, c, a
        from onnx import numpy_helper
        w = numpy_helper.from_array(np.ones((8, 8), np.float32), "w")
        w2 = numpy_helper.from_array(np.ones((8, 4), np.float32), "w2")
        h = onnx.helper
        g = h.make_graph([h.make_node("MatMul", ["a_o", "w2"], ["b_o"], name="b"),
                          h.make_node("Relu", ["b_o"], ["y"], name="c"),
                          h.make_node("MatMul", ["x", "w"], ["a_o"], name="a")], "g",
                         [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 8])],
                         [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [w, w2])
        unsorted = os.path.join(tmp, "unsorted.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), unsorted)
        r = run([oc, "annotate", unsorted, "-o", os.path.join(out_dir, "unsorted_ann.onnx")])
        got = {n.name: {p.key: p.value for p in n.metadata_props}
               for n in onnx.load(os.path.join(out_dir, "unsorted_ann.onnx")).graph.node} if r.returncode == 0 else {}
        want = {"a": ("64", "128"), "b": ("32", "64"), "c": ("0", "0")}
        check("nodes out of execution order keep their own metadata",
              all((got.get(k, {}).get("onnxcost.params"), got.get(k, {}).get("onnxcost.macs")) == v
                  for k, v in want.items()) and got.get("c", {}).get("onnxcost.flops") == "8", str(got))

        # errors: a refused model, a missing -o
        bad = os.path.join(args.fixtures, "bad", "cycle.onnx")
        r = run([oc, "annotate", bad, "-o", os.path.join(out_dir, "bad.onnx")])
        check("bad model: exit 2, one line naming it", r.returncode == 2 and r.stderr.count("\n") == 1
              and bad in r.stderr and not os.path.exists(os.path.join(out_dir, "bad.onnx")), r.stderr)
        r = run([oc, "annotate", bad])
        check("no -o: exit 2", r.returncode == 2 and "-o" in r.stderr, r.stderr)
        # in place through a symlink: the link stays, the file keeps its mode
        target, link = os.path.join(tmp, "inplace.onnx"), os.path.join(tmp, "inplace_link.onnx")
        shutil.copy(os.path.join(args.fixtures, "mnist", "torchsummary_net.onnx"), target)
        os.chmod(target, 0o751)
        os.symlink(target, link)
        r = run([oc, "annotate", link, "-o", link, "-q"])
        check("in place through a symlink: link kept, mode kept, annotated", r.returncode == 0
              and os.path.islink(link) and os.stat(target).st_mode & 0o7777 == 0o751
              and len(onnx.load(target).graph.value_info) > 0, r.stderr)
        leftovers = [f for f in os.listdir(out_dir) if f.startswith(".onnxcost-annotate")]
        check("no temporary files left", not leftovers, str(leftovers))
    print(f"{counts['annotated']} files annotated and checked (at least {MIN_ANNOTATED}), {counts['ort']} of them "
          f"against ONNX Runtime (at least {MIN_ORT}); {counts['refused']} refused as tests/refused.txt lists")
    check(f"at least {MIN_ANNOTATED} files annotated", counts["annotated"] >= MIN_ANNOTATED, str(counts["annotated"]))
    check(f"at least {MIN_ORT} files run under ONNX Runtime", counts["ort"] >= MIN_ORT, str(counts["ort"]))
    print("annotate_check:", "FAILED" if failures else "ok", f"({failures} failures)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
