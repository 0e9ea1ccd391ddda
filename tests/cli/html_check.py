#!/usr/bin/env python3
"""The HTML report in a real browser: headless Chromium renders it to a PNG.

For each fixture: the file must be self-contained (no scripts, links, remote
or file URLs), Chromium must render it without console messages, and the
screenshot must show the charts (enough pixels of the bar colour #4e79a7).
Exit 0 ok, 1 failure, 77 when chromium is not installed.
usage: html_check.py ONNXCOST SOURCE_DIR
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


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
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fx, args in (("torchsummary_net", []), ("examples_net", ["--depth", "1"])):
            html = os.path.join(tmp, fx + ".html")
            png = os.path.join(tmp, fx + ".png")
            run = subprocess.run([onnxcost, os.path.join(src, "fixtures", "mnist", fx + ".onnx"), "--format", "html",
                                  "-o", html, "-q"] + args, capture_output=True, text=True)
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
                    bar = sum(1 for row in rows for x in range(0, w * bpp, bpp)
                              if abs(row[x] - 0x4e) < 12 and abs(row[x + 1] - 0x79) < 12 and abs(row[x + 2] - 0xa7) < 12)
                    if bar < 2000:
                        errors.append(f"the charts look empty ({bar} bar-coloured pixels)")
            if errors:
                failed += 1
                print(f"FAIL {fx}: " + "; ".join(errors))
            else:
                passed += 1
                print(f"ok   {fx}: self-contained, rendered by {os.path.basename(chrome)}, charts drawn")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
