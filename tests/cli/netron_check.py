#!/usr/bin/env python3
"""onnxcost annotate as Netron shows it: Netron (the PyPI package, which
serves the viewer) opens the annotated MNIST net and the ORT-fused tiny GPT-2
in headless Chromium, driven over the DevTools protocol.

Checks: every shape the annotation wrote into value_info is drawn on its edge
(none of the intermediate ones are on the original file); clicking a Conv
node opens its properties with the onnxcost description line and the
metadata values. Exit 77 when netron, websocket-client or chromium is missing.
usage: netron_check.py ONNXCOST FIXTURES_DIR
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import netron
    import onnx
    import websocket
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if not CHROMIUM:
    print("SKIP: no chromium")
    sys.exit(77)

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else f" {detail}"))
    failures += not ok


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


class Page:
    """One Chromium tab over the DevTools protocol."""

    def __init__(self, port):
        for _ in range(100):
            try:
                pages = json.load(urllib.request.urlopen(f"http://localhost:{port}/json"))
                break
            except OSError:
                time.sleep(0.1)
        url = [p for p in pages if p["type"] == "page"][0]["webSocketDebuggerUrl"]
        self.ws = websocket.create_connection(url, timeout=60)
        self.id = 0
        self.call("Page.enable")

    def call(self, method, **params):
        self.id += 1
        self.ws.send(json.dumps({"id": self.id, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.id:
                return m.get("result", m)

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    def wait(self, expr, seconds=20):
        end = time.time() + seconds
        while time.time() < end:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.2)
        return None

    def open(self, url):
        self.call("Page.navigate", url=url)
        # the consent dialog of the served app, then the graph
        self.wait("(() => { const b = [...document.querySelectorAll('button')].find(b => /Accept/.test(b.textContent));"
                  " if (b && b.offsetParent) { b.click(); return true } return document.querySelectorAll('g.node').length"
                  " > 0 })()")
        return self.wait("document.querySelectorAll('g.node').length")

    def click_node(self, op):
        box = self.js(f"""(() => {{ const t = [...document.querySelectorAll('g.node .node-item-type')].find(t =>
            t.querySelector('text').textContent === '{op}');
            if (!t) return null; const r = t.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] }})()""")
        if not box:
            return None
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=t, x=box[0], y=box[1], button="left", clickCount=1)
        text = self.wait("(() => { const t = document.body.innerText; const i = t.search(/NODE PROPERTIES/i);"
                         " return i >= 0 ? t.slice(i) : null })()", 10)
        return text

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))


def edge_label(vi):
    dims = vi.type.tensor_type.shape.dim
    return "×".join(str(d.dim_value) if d.HasField("dim_value") else d.dim_param for d in dims)


def main():
    oc, fixtures = sys.argv[1], sys.argv[2]
    # (model, flags, the node to open, whether Netron labels this graph's edges:
    # 9.3.3 draws no edge labels on the ORT-fused GPT-2, declared inputs included)
    cases = [(os.path.join(fixtures, "mnist", "torchsummary_net.onnx"), ["--batch", "1"], "Conv", True),
             (os.path.join(fixtures, "corpus", "microsoft+onnxruntime-genai",
                           "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx"), [], "Attention",
              False)]
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        port = free_port()
        chrome = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                   f"--remote-debugging-port={port}", "--remote-allow-origins=*",
                                   f"--user-data-dir={tmp}/profile", "--window-size=1400,2400", "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            page = Page(port)
            for model, flags, op, edges in cases:
                name = os.path.basename(model)
                out = os.path.join(tmp, "annotated_" + name)
                r = subprocess.run([oc, "annotate", model, "-o", out, "-q", *flags], capture_output=True, text=True)
                check(f"{name}: annotate", r.returncode == 0, r.stderr)
                annotated = onnx.load(out)
                constants = {o for n in annotated.graph.node if n.op_type == "Constant" for o in n.output}
                added = [v for v in annotated.graph.value_info  # Netron draws a Constant inside its consumer
                         if v.name not in {x.name for x in onnx.load(model).graph.value_info} and v.name not in constants]
                labels = {edge_label(v) for v in added}
                shown = {}
                for which, path in (("original", model), ("annotated", out)):
                    srv = netron.start(path, ("localhost", free_port()), browse=False)
                    url = f"http://{srv[0]}:{srv[1]}/" if isinstance(srv, tuple) else f"http://localhost:{srv}/"
                    n = page.open(url)
                    check(f"{name} ({which}): Netron draws the graph", bool(n), str(n))
                    text = page.js("document.body.innerText") or ""
                    shown[which] = {label for label in labels if label in text.split("\n")}
                    if which == "annotated":
                        page.screenshot(os.path.join(tmp, name + ".png"))
                        time.sleep(0.5)
                        props = page.click_node(op) or ""
                        first = [n for n in annotated.graph.node if n.op_type == op][0]
                        check(f"{name}: {op} properties show the onnxcost description",
                              first.doc_string.splitlines()[-1] in props, props[:300])
                        values = [p.value for p in first.metadata_props]
                        check(f"{name}: {op} properties show its metadata ({len(values)} values)",
                              "METADATA" in props.upper() and all(v in props for v in values), props[-400:])
                    netron.stop(srv)
                if edges:
                    check(f"{name}: every added shape on its edge ({len(shown['annotated'])} of {len(labels)})",
                          shown["annotated"] == labels, str(sorted(labels - shown["annotated"])[:5]))
                    check(f"{name}: the original shows fewer of them ({len(shown['original'])})",
                          len(shown["original"]) < len(labels))
        finally:
            chrome.kill()
            chrome.wait()
    print("netron_check:", "FAILED" if failures else "ok", f"({failures} failures)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
