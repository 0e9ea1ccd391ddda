#!/usr/bin/env python3
"""The HTML report in a real browser: headless Chromium renders it to a PNG.

For each fixture: the file must be self-contained (no scripts, links, remote
or file URLs), Chromium must render it without console messages, and the
screenshot must show the charts (enough pixels of the bar colour #4e79a7).
Then the charts as Chromium renders them, read back from its DOM over the
DevTools protocol, against the JSON report of the same run:
  - the bar charts (MACs and parameters per op type, or per module with
    --depth): one bar per op type or top-level module with a non-zero value,
    largest first, labelled with its name and its value, drawn (rendered
    width) 560 px x value / largest value (at least 1 px) in the bar colour;
  - the share of MACs: one segment per op type with MACs, titled with its
    percentage of the total, 880 px x its share wide;
  - the MACs and FLOPs lines against each symbolic dim: every point at the
    value of the JSON's symbolic formula there (the dim at 1, 2, 4 .. 512).
Exit 0 ok, 1 failure, 77 when chromium or websocket-client is not installed.
usage: html_check.py ONNXCOST SOURCE_DIR
"""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import Page  # noqa: E402

BAR_FILL = {"bar": "rgb(78, 121, 167)", "bar2": "rgb(242, 142, 43)"}  # #4e79a7, #f28e2b
CHARTS_JS = """[...document.querySelectorAll('svg.chart')].map(svg => {
  const h = svg.previousElementSibling;
  const width = e => e.getBoundingClientRect().width;
  return {
    title: h && h.tagName === 'H2' ? h.textContent : null,
    bars: [...svg.querySelectorAll('rect.bar, rect.bar2')].map(r => ({cls: r.getAttribute('class'),
      label: r.previousElementSibling.textContent, value: r.nextElementSibling.textContent, width: width(r),
      fill: getComputedStyle(r).fill})),
    shares: [...svg.querySelectorAll('rect[fill]')].map(r => ({title: r.querySelector('title').textContent,
      width: width(r)})),
    lines: [...svg.querySelectorAll('polyline')].map(p => ({name: p.nextElementSibling.textContent,
      points: [...p.points].map(q => [q.x, q.y])})),
    ticks: [...svg.querySelectorAll('text[text-anchor=middle]')].map(t => t.textContent),
    max: [...svg.querySelectorAll('text')].map(t => t.textContent).filter(t => t.startsWith('max ')),
  };
})"""


def formula_value(expr, point):
    """A symbolic total of the JSON report ("480500*batch + 16") at a binding."""
    if isinstance(expr, int):
        return expr
    e = expr.replace("^", "**")
    if not re.fullmatch(r"[\w\s*+\-()]+", e):
        raise ValueError(f"formula {expr!r}")
    return int(eval(e, {"__builtins__": {}}, dict(point)))


def close(a, b, tol=0.06):  # the report writes coordinates to 0.1 px
    return abs(a - b) <= tol


SWEEP_JS = """[...document.querySelectorAll('svg.chart')].map(svg => ({
  title: svg.previousElementSibling ? svg.previousElementSibling.textContent : null,
  points: [...svg.querySelectorAll('circle')].map(c => ({cx: c.cx.baseVal.value, cy: c.cy.baseVal.value,
    x: +c.dataset.x, y: +c.dataset.y, over: c.classList.contains('over')})),
  capacity: (svg.querySelector('line.capacity') || {dataset: {}}).dataset.y || null}))"""


def check_sweep(charts, doc):
    """The sweep's charts against its JSON rows: the values each point carries,
    and its position a log-log map of them (a constant scale per axis)."""
    import math
    errors = []
    rows = doc["rows"]
    usable = doc["gpu"]["fit"]["usable_bytes"] / 2**20
    want = {"MACs": [r["macs"] for r in rows], "FLOPs": [r["flops"] for r in rows],
            "Memory needed (MiB)": [r["gpu"]["need_bytes"] / 2**20 for r in rows],
            "Predicted time (ms)": [r["gpu"]["time_s"] * 1e3 for r in rows],
            "Predicted samples/s": [r["gpu"]["samples_per_s"] for r in rows]}
    xs = [r["bindings"]["batch"] for r in rows]
    seen = set()
    for c in charts:
        title = (c["title"] or "").split(" against ")[0]
        if title not in want:
            errors.append(f"unexpected chart '{c['title']}'")
            continue
        seen.add(title)
        pts = c["points"]
        if sorted(p["x"] for p in pts) != sorted(xs) or any(
                not math.isclose(p["y"], want[title][xs.index(p["x"])], rel_tol=1e-6) for p in pts):
            errors.append(f"{title}: the points' values differ from the JSON rows")
            continue
        # each axis one scale: from the two points furthest apart, every other point within a pixel
        bad = []
        for pos, val in (("cx", "x"), ("cy", "y")):
            a, b = min(pts, key=lambda p: p[val]), max(pts, key=lambda p: p[val])
            if a[val] == b[val]:
                continue
            k = (b[pos] - a[pos]) / math.log10(b[val] / a[val])
            bad += [p for p in pts if abs(a[pos] + k * math.log10(p[val] / a[val]) - p[pos]) > 1.0]
            if (pos == "cx") != (k > 0):
                bad.append(pos)
        if bad:
            errors.append(f"{title}: not drawn on one log-log scale ({len(bad)} points off)")
        if title.startswith("Memory"):
            if c["capacity"] is None or not math.isclose(float(c["capacity"]), usable, rel_tol=1e-6):
                errors.append(f"{title}: the capacity line is at {c['capacity']}, not {usable} MiB")
            if any(p["over"] != (p["y"] > usable) for p in pts):
                errors.append(f"{title}: points past the capacity not drawn hollow")
    missing = set(want) - seen
    if missing:
        errors.append(f"no chart of {sorted(missing)}")
    return errors


def check_charts(charts, doc):
    """Differences between the charts Chromium rendered and the JSON report."""
    errors = []
    by_title = {c["title"]: c for c in charts}
    per_module = "modules" in doc
    rows = [m for m in doc["modules"] if m["depth"] == 1] if per_module else doc["op_types"]
    name = "path" if per_module else "op_type"
    want_titles = []
    for key, title, cls in (("macs", "MACs", "bar"), ("params", "Parameters", "bar2")):
        title = f"{title} per {'module' if per_module else 'op type'}"
        want = sorted(((r[name], r[key]) for r in rows if r[key]), key=lambda x: -x[1])[:20]
        if not want:
            continue
        want_titles.append(title)
        c = by_title.get(title)
        if not c:
            errors.append(f"no chart '{title}'")
            continue
        got = [(b["label"], int(b["value"].replace(",", ""))) for b in c["bars"]]
        if sorted(got) != sorted(want):
            errors.append(f"{title}: bars {got}, the JSON says {want}")
        if [v for _, v in got] != sorted((v for _, v in got), reverse=True):
            errors.append(f"{title}: bars not largest first: {got}")
        top = max(v for _, v in want)
        for b, (_, v) in zip(c["bars"], got):
            w = max(560.0 * v / top, 1.0)
            if not close(b["width"], w):
                errors.append(f"{title}: bar {b['label']} drawn {b['width']:.2f} px wide, want {w:.2f}")
            if b["cls"] != cls or b["fill"] != BAR_FILL[cls]:
                errors.append(f"{title}: bar {b['label']} of class {b['cls']} filled {b['fill']}")
    total = doc["totals"]["macs"]
    if total:
        want_titles.append("Share of MACs by op type")
        c = by_title.get("Share of MACs by op type")
        want = [(f"{r['op_type']} {100.0 * r['macs'] / total:.1f} %", 880.0 * r["macs"] / total)
                for r in doc["op_types"] if r["macs"]]
        if not c:
            errors.append("no chart 'Share of MACs by op type'")
        elif [s["title"] for s in c["shares"]] != [t for t, _ in want]:
            errors.append(f"shares {[s['title'] for s in c['shares']]}, the JSON gives {[t for t, _ in want]}")
        else:
            errors += [f"share {t}: {s['width']:.2f} px wide, want {w:.2f}" for s, (t, w) in zip(c["shares"], want)
                       if not close(s["width"], w)]
    sym = doc.get("symbolic") or {}
    for dim in sym.get("dims", []):
        title = next((t for t in by_title if t and t.startswith(f"MACs and FLOPs against {dim} (")), None)
        want_titles.append(title)
        if not title:
            errors.append(f"no chart of MACs and FLOPs against {dim}")
            continue
        c = by_title[title]
        xs = [1 << i for i in range(10)]
        series = {k: [formula_value(sym["totals"][k.lower()], {d: (x if d == dim else 1) for d in sym["dims"]})
                      for x in xs] for k in ("MACs", "FLOPs")}
        ymax = max(series["MACs"][-1], series["FLOPs"][-1])
        if c["ticks"] != [str(x) for x in xs] or c["max"] != [f"max {ymax:.3g}"]:
            errors.append(f"{title}: axis {c['ticks']} {c['max']}, want {xs} and max {ymax:.3g}")
        if sorted(line["name"] for line in c["lines"]) != ["FLOPs", "MACs"]:
            errors.append(f"{title}: lines {[line['name'] for line in c['lines']]}")
        for line in c["lines"]:
            want = [(60 + 600.0 * i / 9, 280 - 260.0 * v / ymax) for i, v in enumerate(series.get(line["name"], []))]
            if len(line["points"]) != len(want) or not all(close(p[0], q[0]) and close(p[1], q[1])
                                                         for p, q in zip(line["points"], want)):
                errors.append(f"{title}: {line['name']} points {line['points']}, the formula gives "
                              f"{[(round(x, 1), round(y, 1)) for x, y in want]}")
    if sorted(t for t in by_title if t) != sorted(t for t in want_titles if t) or len(charts) != len(want_titles):
        errors.append(f"charts {[c['title'] for c in charts]}, want {want_titles}")
    return errors


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG format"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def main():
    onnxcost, src = sys.argv[1], sys.argv[2]
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        print("SKIP: chromium is not installed (Debian package chromium)")
        return 77
    try:
        import websocket  # websocket-client: the rendered DOM over the DevTools protocol
    except ImportError as e:
        print(f"SKIP: {e} (websocket-client, from .ci/install-deps)")
        return 77
    passed = failed = charts_checked = 0
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:  # Chromium may still write its profile
        port = free_port()
        browser = subprocess.Popen([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                    f"--remote-debugging-port={port}", "--remote-allow-origins=*",
                                    f"--user-data-dir={tmp}/profile", "--window-size=1000,1400", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            page = Page(port, websocket)
            for fx, args in (("torchsummary_net", []), ("examples_net", ["--depth", "1"])):
                html = os.path.join(tmp, fx + ".html")
                png = os.path.join(tmp, fx + ".png")
                model = os.path.join(src, "fixtures", "mnist", fx + ".onnx")
                run = subprocess.run([onnxcost, model, "--format", "html", "-o", html, "-q"] + args,
                                     capture_output=True, text=True)
                errors = []
                if run.returncode != 0:
                    errors.append(f"onnxcost exited {run.returncode}: {run.stderr.strip()}")
                else:
                    text = open(html, encoding="utf-8").read()
                    if re.search(r"<script|<link|<img|<iframe|https?:|file:|src=|url\(", text, re.I):
                        errors.append("the file is not self-contained")
                    if "<svg" not in text:
                        errors.append("no chart")
                    r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                        "--enable-logging=stderr", "--v=0", "--window-size=1000,1400",
                                        f"--screenshot={png}", "file://" + html],
                                       capture_output=True, text=True, timeout=120, cwd=tmp)
                    console = [ln for ln in r.stderr.splitlines() if "CONSOLE" in ln]
                    if console:
                        errors.append("console messages: " + " | ".join(console[:3]))
                    if not os.path.exists(png):
                        errors.append(f"no screenshot (chromium exited {r.returncode})")
                    else:
                        w, h, rows, bpp = png_pixels(png)
                        bar = sum(1 for row in rows for x in range(0, w * bpp, bpp) if abs(row[x] - 0x4e) < 12
                                  and abs(row[x + 1] - 0x79) < 12 and abs(row[x + 2] - 0xa7) < 12)
                        if bar < 2000:
                            errors.append(f"the charts look empty ({bar} bar-coloured pixels)")
                    # the charts as rendered, against the JSON report of the same options
                    r = subprocess.run([onnxcost, model, "--format", "json", "-q"] + args, capture_output=True,
                                       text=True)
                    page.open("file://" + html)
                    charts = page.js(CHARTS_JS) or []
                    errors += check_charts(charts, json.loads(r.stdout))
                    charts_checked += len(charts)
                if errors:
                    failed += 1
                    print(f"FAIL {fx}: " + "; ".join(errors))
                else:
                    passed += 1
                    print(f"ok   {fx}: self-contained, rendered by {os.path.basename(chrome)}, charts drawn, "
                          f"{len(charts)} charts as rendered equal to the JSON report")
            # onnxcost sweep --format html: every point Chromium draws is a row of the JSON
            # sweep, at a position that is a log-log map of its values (one scale per axis)
            html = os.path.join(tmp, "sweep.html")
            model = os.path.join(src, "fixtures", "mnist", "torchsummary_net.onnx")
            base = [onnxcost, "sweep", model, "--dim", "batch=1,2,4,8,16,64", "--gpu", "t4", "--fit"]
            run = subprocess.run(base + ["--format", "html", "-o", html], capture_output=True, text=True)
            doc = json.loads(subprocess.run(base + ["--format", "json"], capture_output=True, text=True).stdout)
            errors = []
            if run.returncode != 0:
                errors.append(f"onnxcost sweep exited {run.returncode}: {run.stderr.strip()}")
            else:
                page.open("file://" + html)
                charts = page.js(SWEEP_JS) or []
                errors += check_sweep(charts, doc)
            if errors:
                failed += 1
                print("FAIL sweep: " + "; ".join(errors))
            else:
                passed += 1
                print(f"ok   sweep: {len(charts)} charts, every point at its row's value on a log-log scale")
        finally:
            browser.kill()
            browser.wait()
    # 4 charts on the MNIST net (MACs and parameters per op type, the share,
    # MACs and FLOPs against batch), 3 on examples_net at --depth 1
    if charts_checked < 7:
        print(f"FAIL: {charts_checked} charts checked, want 7")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
