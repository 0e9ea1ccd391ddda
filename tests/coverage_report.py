#!/usr/bin/env python3
"""Line and function coverage from a --coverage build's gcov data (tests/coverage.sh).

Runs gcov (its JSON form) on every .gcda file under BUILD_DIR and writes
Markdown to standard output: per source folder, the lines with code and
those executed, the functions and those entered; then, for analyzer/ops/
and views/ (where a user's figures are computed), every function no test
entered, as file:line and name, and every span of lines no test executed,
under the function that holds it, with its first line's text (what
docs/ROBUSTNESS.md gives a case or a reason). A header's inline functions
count once, in the header, with the largest count any unit saw.

usage: coverage_report.py BUILD_DIR SOURCE_DIR
"""
import collections
import json
import os
import re
import subprocess
import sys

FOLDERS = ["analyzer/ops", "analyzer", "views/perf", "views", "reports", "cli", "replay", "probe", "python"]
DETAILED = ("analyzer/ops/", "views/")


def folder_of(rel):
    for f in FOLDERS:
        if rel.startswith(f + "/"):
            return f
    return None


# What an unexecuted span of analyzer/ops/ or views/ is, from its first
# line: the categories docs/ROBUSTNESS.md gives a reason or a test for.
CATEGORIES = [
    ("out of memory", ("OC_ERR_NOMEM", "out of memory")),
    ("an overflow flagged", ("OVERFLOW",)),
    ("a malformed node refused", ("OC_ERR_MODEL",)),
    ("past onnxcost's limits", ("OC_ERR_UNSUPPORTED",)),
    ("a value not known before run time", ("OC_ERR_SHAPE", "OC_DIM_UNKNOWN")),
    ("an error passed up", ("return st;", "return res;", "return c->diag->code;", "return rc;")),
]


ALLOCATION = re.compile(r"\b(calloc|malloc|realloc|aligned_alloc|strdup|strndup)\s*\(|_new\s*\(|_alloc\w*\s*\(")
NULL_CHECK = re.compile(r"^if \((\s*(\|\|\s*)?![\w>.\-]+)+\s*\)\s*\{?$")


def allocation_failed(text, a, b):
    """Whether lines a..b (1-based) handle an allocation that failed: the
    line before them tests pointers for NULL (if (!p || !q)) of which one
    was just assigned from an allocation (calloc, malloc, realloc, strdup,
    a *_new or *_alloc call) in the 60 lines above."""
    k = a - 2
    while k >= 0 and not text[k].strip():
        k -= 1
    prev = text[k].strip() if k >= 0 else ""
    if not NULL_CHECK.match(prev):
        return False
    names = re.findall(r"!\s*([\w>.\-]+)", prev)
    above = text[max(0, k - 60):k]
    return any(re.search(r"(^|[^\w>.])" + re.escape(nm) + r"\s*=[^=]", ln) and ALLOCATION.search(ln)
               for nm in names for ln in above)


def category(first, function, text=(), a=0, b=0):
    for name, signs in CATEGORIES:
        if any(x in first for x in signs):
            return name
    for line in text[a:b]:  # a later line of the span: what its first telling line does
        for name, signs in CATEGORIES:
            if any(x in line for x in signs):
                return name
    if text and allocation_failed(text, a, b):
        return "out of memory"
    if function.endswith("_fold") and first.startswith(("return OC_OK;", "return false;", "continue;")):
        return "a constant fold declined (the value left unknown)"
    return "other"


def gcov_json(gcda):
    run = subprocess.run(["gcov", "--json-format", "--stdout", "--object-directory", os.path.dirname(gcda), gcda],
                         capture_output=True, text=True, cwd=os.path.dirname(gcda))
    docs = []
    for line in run.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            docs.append(json.loads(line))
    return docs


def main():
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    lines = collections.defaultdict(dict)  # rel -> line -> count
    funcs = collections.defaultdict(dict)  # rel -> (name, line) -> count
    ends = collections.defaultdict(dict)  # rel -> (name, line) -> end line
    for root, _, files in os.walk(build):
        for f in files:
            if not f.endswith(".gcda"):
                continue
            for doc in gcov_json(os.path.join(root, f)):
                for fi in doc.get("files", []):
                    path = fi["file"]
                    path = path if os.path.isabs(path) else os.path.normpath(os.path.join(doc.get("current_working_directory", root), path))
                    rel = os.path.relpath(path, src)
                    if rel.startswith("..") or rel.startswith("build") or rel.startswith("tests/") or not folder_of(rel):
                        continue
                    for ln in fi.get("lines", []):
                        n = ln["line_number"]
                        lines[rel][n] = max(lines[rel].get(n, 0), ln["count"])
                    for fn in fi.get("functions", []):
                        key = (fn.get("demangled_name") or fn["name"], fn["start_line"])
                        funcs[rel][key] = max(funcs[rel].get(key, 0), fn["execution_count"])
                        ends[rel][key] = fn.get("end_line", fn["start_line"])
    by = collections.OrderedDict((f, [0, 0, 0, 0]) for f in FOLDERS)
    for rel in lines:
        t = by[folder_of(rel)]
        t[0] += len(lines[rel])
        t[1] += sum(1 for c in lines[rel].values() if c > 0)
        t[2] += len(funcs[rel])
        t[3] += sum(1 for c in funcs[rel].values() if c > 0)
    print("# Line coverage of `ctest -LE full`\n")
    print("| folder | lines with code | executed | functions | entered |")
    print("|---|---:|---:|---:|---:|")
    tot = [0, 0, 0, 0]
    for f, t in by.items():
        if not t[0]:
            continue
        tot = [a + b for a, b in zip(tot, t)]
        print(f"| {f}/ | {t[0]:,} | {t[1]:,} ({100 * t[1] / t[0]:.1f} %) | {t[2]:,} | {t[3]:,} "
              f"({100 * t[3] / max(t[2], 1):.1f} %) |")
    print(f"| all | {tot[0]:,} | {tot[1]:,} ({100 * tot[1] / max(tot[0], 1):.1f} %) | {tot[2]:,} | {tot[3]:,} "
          f"({100 * tot[3] / max(tot[2], 1):.1f} %) |")
    print("\n## Functions no test enters, in analyzer/ops/ and views/\n")
    for rel in sorted(funcs):
        if not rel.startswith(DETAILED):
            continue
        never = sorted((line, name) for (name, line), c in funcs[rel].items() if c == 0)
        for line, name in never:
            print(f"- `{rel}:{line}` {name}")
    listing = []
    for rel in sorted(lines):
        if not rel.startswith(DETAILED):
            continue
        try:
            text = open(os.path.join(src, rel), errors="replace").read().split("\n")
        except OSError:
            text = []
        zero = sorted(n for n, c in lines[rel].items() if c == 0)
        spans = []
        for n in zero:  # consecutive lines with code, none executed, as one span
            if spans and all(lines[rel].get(k, 0) == 0 for k in range(spans[-1][1] + 1, n)) and \
                    not any(k in lines[rel] and lines[rel][k] > 0 for k in range(spans[-1][1] + 1, n)):
                spans[-1][1] = n
            else:
                spans.append([n, n])
        for a, b in spans:
            fn = [(name, line) for (name, line), e in ends[rel].items() if line <= a <= e and funcs[rel][(name, line)] > 0]
            if not fn:
                continue  # a function never entered: listed above
            name = max(fn, key=lambda k: k[1])[0]
            first = text[a - 1].strip() if a - 1 < len(text) else ""
            listing.append((category(first, name, text, a, b), rel, a, b, name, first, rel.startswith("views/")))
    print("\n## Lines no test executes, in analyzer/ops/ and views/ (in functions entered)\n")
    print("| what the span does | spans in analyzer/ops/ | in views/ |")
    print("|---|---:|---:|")
    cats = [c for c, _ in CATEGORIES] + ["a constant fold declined (the value left unknown)", "other"]
    for cat in cats:
        ops = sum(1 for x in listing if x[0] == cat and not x[6])
        views = sum(1 for x in listing if x[0] == cat and x[6])
        print(f"| {cat} | {ops} | {views} |")
    print("\nEach span: file:first-last, the function, its first line.\n")
    for cat in cats:
        print(f"\n### {cat}\n")
        for _, rel, a, b, name, first, _v in (x for x in listing if x[0] == cat):
            print(f"- `{rel}:{a}-{b}` {name}: `{first[:100]}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
