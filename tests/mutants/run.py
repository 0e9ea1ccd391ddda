#!/usr/bin/env python3
"""Planted mutants (tests/mutants/mutants.py): each built once, its tests run,
each must fail on it.

Copies the source tree (the files git tracks, and untracked ones it does not
ignore) to WORK/src, configures WORK/build (Release; the oracle Python of
--like's build, or the default), builds everything once, then runs every
mutant's tests on the unmutated copy: they must pass there, or a failure
would prove nothing. Then, one mutant at a time: the change made in the
copy, an incremental build, its tests (ctest -R '^(a|b)$'), the file put
back. The source tree itself is never touched.

Exit 1 when a mutant survives (all its tests pass), when its find text does
not occur exactly once (the mutant is stale: rewrite it against the code),
when a mutant does not build or is missing from docs/ROBUSTNESS.md's table,
or when the baseline fails.

usage: run.py [--work DIR] [--like BUILD_DIR] [--only NAME[,NAME...]] [--jobs N]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402


def sh(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def copy_tree(dst):
    files = sh(["git", "-C", SRC, "ls-files", "-co", "--exclude-standard", "-z"]).stdout.split("\0")
    for f in filter(None, files):
        s = os.path.join(SRC, f)
        if not os.path.isfile(s) or os.path.islink(s):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(s, os.path.join(dst, f))


def oracle_python(like):
    """ONNXCOST_ORACLE_PYTHON of an existing build's cache, or None."""
    try:
        for line in open(os.path.join(like, "CMakeCache.txt")):
            if line.startswith("ONNXCOST_ORACLE_PYTHON:"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def ctest(build, tests):
    pattern = "^(" + "|".join(re.escape(t) for t in tests) + ")$"
    p = sh(["ctest", "--test-dir", build, "-R", pattern, "--no-tests=error"])
    # only the FAILED list: a test that skipped (ctest's "did not run" list) killed nothing
    section = p.stdout.split("The following tests FAILED:", 1)[1] if "The following tests FAILED:" in p.stdout else ""
    failed = re.findall(r"^\s*\d+ - (\S+) \((?:Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Child aborted)",
                        section, re.M)
    ran = re.findall(r"Test\s+#\d+: (\S+) \.+", p.stdout)
    return failed, ran, p.stdout


def main():
    sys.stdout.reconfigure(line_buffering=True)  # a CI log shows each mutant as it ends
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=os.path.join(SRC, "build-mutants"))
    ap.add_argument("--like", help="a configured build whose oracle Python to use")
    ap.add_argument("--only", help="comma-separated mutant names")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    chosen = [m for m in MUTANTS if not args.only or m["name"] in args.only.split(",")]
    if not chosen:
        print("FAIL: no mutant chosen")
        return 1
    src, build = os.path.join(args.work, "src"), os.path.join(args.work, "build")
    shutil.rmtree(args.work, ignore_errors=True)
    t0 = time.time()
    copy_tree(src)
    problems = []
    doc = open(os.path.join(SRC, "docs", "ROBUSTNESS.md"), encoding="utf-8").read()
    for m in chosen:  # each listed where readers look
        if f"| `{m['name']}` |" not in doc:
            problems.append(f"{m['name']}: not in docs/ROBUSTNESS.md's table of planted mutants")
    for m in chosen:  # stale mutants fail before anything is built
        n = open(os.path.join(src, m["file"]), encoding="utf-8").read().count(m["find"])
        if n != 1:
            problems.append(f"{m['name']}: its find text occurs {n} times in {m['file']} (want 1): rewrite it")
    if problems:
        print("\n".join("FAIL " + p for p in problems))
        return 1
    conf = ["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"]
    py = oracle_python(args.like) if args.like else None
    if py:
        conf.append(f"-DONNXCOST_ORACLE_PYTHON={py}")
    for step in (conf, ["cmake", "--build", build, f"-j{args.jobs}"]):
        p = sh(step)
        if p.returncode:
            print(f"FAIL: {' '.join(step[:3])}: {p.stdout[-1500:]}{p.stderr[-1500:]}")
            return 1
    tests = sorted({t for m in chosen for t in m["tests"]})
    failed, ran, out = ctest(build, tests)
    missing = sorted(set(tests) - set(ran))
    if failed or missing:
        print(f"FAIL: the mutants' tests must pass on the unmutated copy: failed {failed}, not found {missing}")
        print(out[-3000:])
        return 1
    print(f"baseline: {len(tests)} tests pass unmutated ({time.time() - t0:.0f} s with the build)")
    survived = []
    for m in chosen:
        t = time.time()
        path = os.path.join(src, m["file"])
        orig = open(path, encoding="utf-8").read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig.replace(m["find"], m["replace"]))
        try:
            p = sh(["cmake", "--build", build, f"-j{args.jobs}"])
            if p.returncode:
                problems.append(f"{m['name']}: does not build: {(p.stdout + p.stderr)[-600:]}")
                print(f"FAIL {m['name']}: does not build")
                continue
            failed, ran, out = ctest(build, m["tests"])
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        if set(ran) != set(m["tests"]):
            problems.append(f"{m['name']}: tests not found: {sorted(set(m['tests']) - set(ran))}")
        if failed:
            print(f"killed   {m['name']:38s} by {', '.join(failed)} ({time.time() - t:.0f} s): {m['why']}")
        else:
            survived.append(m["name"])
            print(f"SURVIVED {m['name']:38s} {', '.join(m['tests'])} passed ({time.time() - t:.0f} s): {m['why']}")
    p = sh(["cmake", "--build", build, f"-j{args.jobs}"])  # the copy back as it was
    for pr in problems:
        print("FAIL " + pr)
    print(f"{len(chosen) - len(survived) - len(problems)} of {len(chosen)} mutants killed, {len(survived)} survived, "
          f"{len(problems)} problems ({time.time() - t0:.0f} s)")
    return 1 if survived or problems else 0


if __name__ == "__main__":
    sys.exit(main())
