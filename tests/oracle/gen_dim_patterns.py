#!/usr/bin/env python3
"""Generated graphs whose shapes go through integer arithmetic on a symbolic
dim (issue 42, A): ranges, --largest, plans and formulas against the
generator's own arithmetic, at every binding of the box.

Each graph has one input x[n, 8]. The scalar n is taken with Shape and
Gather, and a random expression tree over it gives k: Add, Sub and Mul by
constants, a constant minus it (falling as n grows), n*n, integer Div, Mod, Min, Max, and Where on Equal (of a Mod
residue, or of one value: a spike) or Less of such expressions (the
patterns a fitted polynomial can match at every probe binding and miss in
between), wrapped in Max(k, 1) when it may fall
below 1. k and n then size tensors through the ops exporters use:
ConstantOfShape([k, 8]), Slice(x, 0, k) (rows min(k, n)), Reshape(x,
[-1, 4]), Expand to [k, 8], Range(0, k) gathered, and each result goes
through a MatMul whose MACs the generator counts: rows x inner x 16.

Expected values are computed here, from the expression with ONNX's integer
semantics (Div truncates toward zero, Mod's sign follows the divisor), never
from onnxcost. For each graph and a random box n = lo..hi:
  - ranges: the MACs [min, max] and a binding reaching each equal the
    generator's over every n of the box, whatever method onnxcost says;
  - --largest n under --max-macs B (B drawn between the box's min and max):
    the largest v whose every v' <= v keeps B, and where it breaks;
  - formulas (n unbound): where onnxcost says the totals' formulas are
    proven (JSON symbolic.totals_proven, holding where symbolic.holds_where
    says), the MACs formula equals the generator's count at every n of
    1..64 inside that; a formula it only fitted is not checked (it says so);
  - one graph in four, plan over the box: every MatMul output's buffer holds
    its largest size over the box (rows x 16 x 4 bytes).
A mismatch writes the graph to --keep DIR and fails.

usage: gen_dim_patterns.py --onnxcost BIN [--seed S] [--graphs N | --seconds T] [--min-graphs N] [--keep DIR]
Exit 0 when all agree and at least --min-graphs ran, 1 otherwise, 77 when
onnx is missing.
"""
import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--graphs", type=int, default=0)
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--min-graphs", type=int, default=200)
ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
ap.add_argument("--keep", default="")
a = ap.parse_args()
WORK = tempfile.mkdtemp(prefix="oc-dimgen.")


def c_div(x, y):  # ONNX integer Div: toward zero
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def c_mod(x, y):  # ONNX Mod, fmod = 0: the sign follows the divisor (Python's %)
    return x % y


# Cast between integer types as ONNX Runtime does it (a static_cast): the
# value mod 2^bits in the target's range; to bool, x != 0
CAST_TYPES = {"int8": (TensorProto.INT8, 8, True), "uint8": (TensorProto.UINT8, 8, False),
              "int16": (TensorProto.INT16, 16, True), "uint16": (TensorProto.UINT16, 16, False),
              "int32": (TensorProto.INT32, 32, True), "uint32": (TensorProto.UINT32, 32, False),
              "bool": (TensorProto.BOOL, 1, False)}


def c_cast(x, to):
    if to == "bool":
        return int(x != 0)
    _, bits, signed = CAST_TYPES[to]
    x %= 1 << bits
    return x - (1 << bits) if signed and x >= 1 << (bits - 1) else x


def c_wrap64(x):  # int64 arithmetic wraps in the runtime
    x %= 1 << 64
    return x - (1 << 64) if x >= 1 << 63 else x


class Gen:
    """One graph: nodes, initializers and the expression as a Python function of n."""

    def __init__(self, rng, lo, hi):
        self.rng, self.nodes, self.inits, self.k = rng, [], [], 0
        self.kinds = set()
        self.lo, self.hi = lo, hi  # the box: where a step through bool is 0, a hump's zeros

    def name(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def const(self, v):
        nm = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(v, dtype=np.int64), nm))
        return nm

    def node(self, op, ins, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def expr(self, n_name, depth):
        """(value name, python function of n)."""
        r = self.rng
        if depth == 0 or r.random() < 0.25:
            if r.random() < 0.7:
                return n_name, (lambda n: n)
            c = r.randint(1, 12)
            return self.const(c), (lambda n, c=c: c)
        op = r.choice(["add", "sub", "rsub", "mul", "mul", "sq", "div", "mod", "min", "max", "where_eq", "where_lt",
                       "spike", "cast", "cast", "bigmul", "bool_step", "bigcmp"])
        self.kinds.add(op)
        a_nm, fa = self.expr(n_name, depth - 1)
        if op == "cast":  # through a narrower type and back: wraps where it cannot hold the value
            to = r.choice(sorted(CAST_TYPES))
            if to in ("int8", "uint8", "bool") and r.random() < 0.5:  # near the wrap: a + c, c up to 250
                c = r.randint(60, 250)
                a_nm, fa = self.node("Add", [a_nm, self.const(c)]), (lambda n, f=fa, c=c: f(n) + c)
            elif to in ("int16", "uint16", "int32", "uint32") and r.random() < 0.5:  # a * 2^(bits - 7)
                c = 1 << (CAST_TYPES[to][1] - 7)
                a_nm, fa = self.node("Mul", [a_nm, self.const(c)]), (lambda n, f=fa, c=c: f(n) * c)
            self.kinds.add("cast_" + to)
            t = self.node("Cast", [a_nm], to=CAST_TYPES[to][0])
            return self.node("Cast", [t], to=TensorProto.INT64), (lambda n: c_cast(fa(n), to))
        if op == "bool_step":  # C + C * Cast(a - a(lo) -> bool) - a: 0 at the box's low end, 1 past it
            c, t = r.randint(50, 150), fa(self.lo)
            d = self.node("Sub", [a_nm, self.const(t)])
            b = self.node("Cast", [self.node("Cast", [d], to=TensorProto.BOOL)], to=TensorProto.INT64)
            k = self.node("Add", [self.node("Mul", [b, self.const(c)]), self.const(c)])
            return self.node("Sub", [k, a_nm]), (lambda n: c + c * c_cast(fa(n) - t, "bool") - fa(n))
        if op == "bigcmp":  # a * a * C < D with C near 2^62: decided only by bounds that do not wrap
            big = r.choice([1 << 62, (1 << 61) + 3])
            lim = r.choice([1 << 62, 1 << 40, 1 << 20])
            b_nm, fb = self.expr(n_name, depth - 1)
            prod = self.node("Mul", [self.node("Mul", [a_nm, a_nm]), self.const(big)])
            cond = self.node("Less", [prod, self.const(lim)])
            if r.random() < 0.5:  # a hump: (a - a(lo)) * (a(hi) - a) * C, 0 at both corners, wrapping between
                t0, t1 = fa(self.lo), fa(self.hi)
                up = self.node("Sub", [a_nm, self.const(t0)])
                down = self.node("Sub", [self.const(t1), a_nm])
                prod = self.node("Mul", [self.node("Mul", [up, down]), self.const(big)])
                cond = self.node("Less", [prod, self.const(1)])
                self.kinds.add("hump")
                return self.node("Where", [cond, b_nm, a_nm]), (
                    lambda n: fb(n) if c_wrap64(c_wrap64((fa(n) - t0) * (t1 - fa(n))) * big) < 1 else fa(n))
            return self.node("Where", [cond, b_nm, a_nm]), (
                lambda n: fb(n) if c_wrap64(c_wrap64(fa(n) * fa(n)) * big) < lim else fa(n))
        if op == "bigmul":  # a coefficient near 2^63: a * C / C wraps in int64 unless a is 0 or 1
            big = r.choice([1 << 62, (1 << 61) + 1, (1 << 63) - 1, 1 << 40])
            m = self.node("Mul", [a_nm, self.const(big)])
            return self.node("Div", [m, self.const(big)]), (lambda n: c_div(c_wrap64(fa(n) * big), big))
        if op == "rsub":  # c - a: falls as n grows
            c = r.randint(10, 80)
            return self.node("Sub", [self.const(c), a_nm]), (lambda n: c_wrap64(c - fa(n)))
        if op in ("add", "sub", "mul", "div", "mod", "min", "max"):
            c = r.randint(1, 9) if op != "mul" else r.randint(1, 4)
            c_nm = self.const(c)
            onnx_op = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "mod": "Mod", "min": "Min",
                       "max": "Max"}[op]
            f = {"add": lambda n: c_wrap64(fa(n) + c), "sub": lambda n: c_wrap64(fa(n) - c),
                 "mul": lambda n: c_wrap64(fa(n) * c),
                 "div": lambda n: c_div(fa(n), c), "mod": lambda n: c_mod(fa(n), c),
                 "min": lambda n: min(fa(n), c), "max": lambda n: max(fa(n), c)}[op]
            return self.node(onnx_op, [a_nm, c_nm]), f
        if op == "sq":
            return self.node("Mul", [a_nm, a_nm]), (lambda n: c_wrap64(fa(n) * fa(n)))
        # Where(cond(a), then, else): a spike at one residue, or a step
        b_nm, fb = self.expr(n_name, depth - 1)
        if op == "where_eq":
            m, res = r.randint(2, 17), 0
            res = r.randint(0, m - 1)
            mod = self.node("Mod", [a_nm, self.const(m)])
            cond = self.node("Equal", [mod, self.const(res)])
            return self.node("Where", [cond, b_nm, a_nm]), (lambda n: fb(n) if c_mod(fa(n), m) == res else fa(n))
        if op == "spike":  # one value of a off the probes: Where(a == c, b, a)
            c = r.randint(1, 64)
            cond = self.node("Equal", [a_nm, self.const(c)])
            return self.node("Where", [cond, b_nm, a_nm]), (lambda n: fb(n) if fa(n) == c else fa(n))
        t = r.randint(2, 40)
        cond = self.node("Less", [a_nm, self.const(t)])
        return self.node("Where", [cond, b_nm, a_nm]), (lambda n: fb(n) if fa(n) < t else fa(n))


HIGH = 1 << 40  # one box in eight lies just under 2^40, the largest dim a range takes


def make(seed):
    """A graph, its box and the generator's MACs at every n of 1..64 and of the box."""
    rng = random.Random(seed)
    high = rng.random() < 0.125
    if high:
        lo = HIGH - 64 + rng.randint(1, 40)
        hi = rng.randint(lo, HIGH)
    else:
        lo = rng.randint(1, 40)
        hi = rng.randint(lo, min(64, lo + rng.choice([3, 10, 24, 63])))
    points = sorted(set(range(1, 65)) | set(range(lo, hi + 1)))
    for _ in range(50):
        g = Gen(rng, lo, hi)
        s = g.node("Shape", ["x"])
        n_nm = g.node("Gather", [s, g.const(0)], axis=0)
        k_nm, fk = g.expr(n_nm, rng.randint(1, 3))
        ks = [fk(n) for n in points]
        if min(ks) < 1:
            k_nm = g.node("Max", [k_nm, g.const(1)])
            fk = (lambda f: (lambda n: max(f(n), 1)))(fk)
            ks = [fk(n) for n in points]
        if max(fk(n) for n in range(1, 65)) <= 4096 and max(ks) < 1 << 44:
            break
    else:
        return None
    k1 = g.node("Unsqueeze", [k_nm, g.const([0])])
    outs, macs_of, bytes_of = [], [], {}
    w16 = numpy_helper.from_array(np.ones((8, 16), np.float32), "W8")
    w4 = numpy_helper.from_array(np.ones((4, 16), np.float32), "W4")
    g.inits += [w16, w4]
    kinds = ["cos", "slice", "reshape", "expand", "direct"] + ([] if high or max(ks) > 4096 else ["range"])
    consumers = rng.sample(kinds, rng.randint(1, 3))
    for cons in consumers:
        if cons == "cos":
            shp = g.node("Concat", [k1, g.const([8])], axis=0)
            t = g.node("ConstantOfShape", [shp], value=numpy_helper.from_array(np.array([1.0], np.float32)))
            rows, inner = fk, 8
        elif cons == "slice":
            t = g.node("Slice", ["x", g.const([0]), k1, g.const([0])])
            rows, inner = (lambda n: min(fk(n), n)), 8
        elif cons == "reshape":
            t = g.node("Reshape", ["x", g.const([-1, 4])])
            rows, inner = (lambda n: 2 * n), 4
        elif cons == "expand":
            one = g.node("ConstantOfShape", [g.const([1, 8])],
                         value=numpy_helper.from_array(np.array([1.0], np.float32)))
            t = g.node("Expand", [one, g.node("Concat", [k1, g.const([8])], axis=0)])
            rows, inner = fk, 8
        elif cons == "range":
            idx = g.node("Range", [g.const(0), k_nm, g.const(1)])
            table = numpy_helper.from_array(np.ones((4097, 8), np.float32), g.name("table"))
            g.inits.append(table)
            t = g.node("Gather", [table.name, idx], axis=0)
            rows, inner = fk, 8
        else:
            t, rows, inner = "x", (lambda n: n), 8
        y = g.node("MatMul", [t, "W8" if inner == 8 else "W4"])
        outs.append(y)
        macs_of.append((rows, inner))
        bytes_of[y] = rows
    graph = helper.make_graph(g.nodes, f"dims{seed}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                              initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    macs = {n: sum(r(n) * inner * 16 for r, inner in macs_of) for n in points}
    if high:
        g.kinds.add("high")
    return model, macs, (lo, hi), bytes_of, g.kinds, rng


def run(*args):
    return subprocess.run([a.onnxcost] + [str(x) for x in args], capture_output=True, text=True, timeout=120)


def poly_at(expr, n):
    """Evaluates onnxcost's ascii formula ("12*n^2 + 3*n + 4") at n."""
    if isinstance(expr, int):
        return expr
    return eval(re.sub(r"\^", "**", expr), {"__builtins__": {}}, {"n": n})


def guards_hold(where, n):
    if not where:
        return True
    for g in where.split(", "):
        m = re.fullmatch(r"n <= (-?\d+)", g)
        if not m:
            return False  # a guard this check does not read: take the formula as not claimed there
        if n > int(m.group(1)):
            return False
    return True


def check(seed):
    made = make(seed)
    if not made:
        return seed, [], {}
    model, macs, (lo, hi), bytes_of, kinds, rng = made
    path = os.path.join(WORK, f"g{seed}.onnx")
    onnx.save(model, path)
    bad, info = [], {"kinds": sorted(kinds)}
    box = range(lo, hi + 1)
    want_lo, want_hi = min(macs[n] for n in box), max(macs[n] for n in box)
    # ranges
    p = run(path, "--dim", f"n={lo}:{hi}", "--format", "json", "-q")
    if p.returncode != 0:
        bad.append(f"ranges exit {p.returncode}: {p.stderr.strip()[:200]}")
    else:
        r = json.loads(p.stdout)["ranges"]
        info["method"] = r["method"]
        m = r["totals"]["macs"] if r.get("totals") else None
        complete = r.get("complete", True)
        info["incomplete"] = not complete
        if r["method"] == "unbounded":
            pass  # said so, and no figure given: not wrong
        elif not m:
            bad.append(f"ranges {r['method']}: no totals")
        elif not complete:  # lower bounds, said so: never above the true figure
            if m["min"] > want_lo or m["max"] > want_hi:
                bad.append(f"ranges ({r['method']}, lower bounds): MACs [{m['min']}, {m['max']}] above the "
                           f"generator's [{want_lo}, {want_hi}]")
        elif (m["min"], m["max"]) != (want_lo, want_hi) or macs[m["argmin"]["n"]] != want_lo or \
                macs[m["argmax"]["n"]] != want_hi:
            bad.append(f"ranges ({r['method']}): MACs [{m['min']}, {m['max']}] at n={m['argmin']['n']}/"
                       f"{m['argmax']['n']}, the generator [{want_lo}, {want_hi}]")
    # --largest n under a budget between the box's ends
    budget = rng.randint(want_lo, want_hi)
    want_v = None
    for n in box:
        if macs[n] > budget:
            break
        want_v = n
    p = run(path, "--dim", f"n={lo}:{hi}", "--max-macs", budget, "--largest", "n", "--format", "json", "-q")
    try:
        R = json.loads(p.stdout)["ranges"]
        L = R.get("largest") or {"known": False, "at_range_end": False}
        got = L["value"] if L["known"] else "unknown"
        breaks = want_v + 1 if want_v is not None else lo
        if R["method"] == "unbounded" or not R.get("complete", True):
            # not bounded, or lower bounds: no answer past the true one
            if got not in ("unknown", None) and (want_v is None or got > want_v):
                bad.append(f"--largest n under {budget} over lower bounds: {got}, the generator {want_v}")
        elif got != want_v or (not L["at_range_end"] and L.get("breaks_at") != breaks) or \
                L["at_range_end"] != (want_v == hi):
            bad.append(f"--largest n under {budget}: {got} (breaks at {L.get('breaks_at')}), the generator {want_v}")
    except (ValueError, KeyError, TypeError):
        bad.append(f"--largest exit {p.returncode}: {p.stderr.strip()[:200]}")
    # formulas with n unbound: where proven, exact at every n the guards allow
    p = run(path, "--format", "json", "-q")
    try:
        sym = json.loads(p.stdout).get("symbolic")
        if sym and sym.get("totals_proven"):
            info["proven"] = True
            expr = sym["totals"]["macs"]
            wrong = [n for n in range(1, 65) if guards_hold(sym.get("holds_where"), n) and poly_at(expr, n) != macs[n]]
            if wrong:
                bad.append(f"proven formula {expr} (where {sym.get('holds_where')}) wrong at n={wrong[:5]}")
    except (ValueError, KeyError, TypeError, SyntaxError) as e:
        bad.append(f"formulas: {e}: {p.stderr.strip()[:200]}")
    # a plan over the box: each MatMul output's buffer holds its largest size
    if seed % 4 == 0:
        p = run("plan", path, "--dim", f"n={lo}:{hi}", "--format", "json")
        try:
            doc = json.loads(p.stdout)
            size = {v: b["bytes"] for b in doc["buffers"] for v in b["values"]}
            for y, rows in bytes_of.items():
                need = max(rows(n) for n in box) * 16 * 4
                if y in size and size[y] < need:
                    bad.append(f"plan: {y} sized {size[y]} B, {need} B at some n")
        except (ValueError, KeyError, TypeError):
            if "needs every tensor's size proven" not in p.stderr and "has no known size" not in p.stderr:
                bad.append(f"plan exit {p.returncode}: {p.stderr.strip()[:200]}")
    if bad and a.keep:
        os.makedirs(a.keep, exist_ok=True)
        onnx.save(model, os.path.join(a.keep, f"dims{seed}.onnx"))
    os.remove(path)
    return seed, bad, info


def main():
    t0 = time.time()
    done, failures, methods, proven, incomplete = 0, [], {}, 0, 0
    seeds = iter(range(a.seed * 1000003, a.seed * 1000003 + 10**9))
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        pending = set()
        while True:
            more = (a.graphs and done + len(pending) < a.graphs) or (not a.graphs and time.time() - t0 < a.seconds)
            while more and len(pending) < 2 * a.jobs:
                pending.add(ex.submit(check, next(seeds)))
                more = (a.graphs and done + len(pending) < a.graphs) or (not a.graphs and time.time() - t0 < a.seconds)
            if not pending:
                break
            fin, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for f in fin:
                seed, bad, info = f.result()
                done += 1
                methods[info.get("method")] = methods.get(info.get("method"), 0) + 1
                proven += bool(info.get("proven"))
                incomplete += bool(info.get("incomplete"))
                if bad:
                    failures.append((seed, bad))
                    print(f"FAIL graph {seed} ({info.get('kinds')}): " + "; ".join(bad[:3]), flush=True)
    print(f"{done} graphs in {time.time() - t0:.0f} s: methods {methods}, formulas proven on {proven}, "
          f"lower bounds (said so) on {incomplete}; "
          f"{len(failures)} failed")
    ok = not failures and done >= a.min_graphs
    if done < a.min_graphs:
        print(f"FAIL only {done} graphs (at least {a.min_graphs})")
    sys.exit(0 if ok else 1)


main()
