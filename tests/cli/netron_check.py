#!/usr/bin/env python3
"""onnxcost annotate as Netron shows it: Netron (the PyPI package, which
serves the viewer) opens the annotated MNIST net and the ORT-fused tiny GPT-2
in headless Chromium, driven over the DevTools protocol.

Checks: every shape the annotation wrote into value_info is drawn on its edge:
Netron names each edge after its value (path#edge-NAME, its label
text#edge-label-edge-NAME), and for every value added the label must read
its shape, and its edges must run from the box of the node that produces the
value to the boxes of exactly the nodes that consume it (the rendered
path's ends on the rendered node boxes); the original file shows fewer of
those labels. Clicking a Conv node opens its properties with the onnxcost
description line and the metadata values. Exit 77 when netron,
websocket-client or chromium is missing.
usage: netron_check.py ONNXCOST FIXTURES_DIR
"""
import base64
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402

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


class Page(devtools.Page):
    """A tab on Netron: opening waits for the served app's graph."""

    def __init__(self, port):
        super().__init__(port, websocket)

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


# the graph laid out: every edge path drawn, every edge label placed (Netron
# adds them first and places them after the layout, which may come later)
LAID_OUT_JS = r"""(() => { const p = [...document.querySelectorAll('path.edge-path')];
  return p.length > 0 && p.every(e => e.getAttribute('d'))
    && [...document.querySelectorAll('text.edge-label')].every(t => t.style.opacity === '1'); })()"""
# the drawn graph: node boxes by id, edge paths with their two ends, edge labels (page coordinates)
GRAPH_JS = r"""(() => {
  const end = (p, at) => { const q = p.getPointAtLength(at), m = p.getScreenCTM();
    return [q.x * m.a + q.y * m.c + m.e, q.x * m.b + q.y * m.d + m.f]; };
  return {
    nodes: [...document.querySelectorAll('g[id^="node-"], g[id^="input-"], g[id^="output-"]')].map(g => {
      const r = g.getBoundingClientRect(); return [g.id, [r.left, r.top, r.right, r.bottom]]; }),
    edges: [...document.querySelectorAll('path.edge-path')].map(p => ({id: p.id, ends: [end(p, 0),
      end(p, p.getTotalLength())]})),
    labels: [...document.querySelectorAll('text.edge-label')].map(t => ({id: t.id, text: t.textContent})),
  };
})()"""


def node_at(nodes, point, tol=1.5):
    """The id of the drawn node whose box the point is on (an edge ends on its border)."""
    x, y = point
    on = [i for i, (l, t, r, b) in nodes if l - tol <= x <= r + tol and t - tol <= y <= b + tol]
    return on[0] if len(on) == 1 else None


def edge_problems(drawn, model, added):
    """For each value added: (its label drawn with its shape on every edge of
    it, its edges from its producer's box to its consumers' boxes) -> the
    values whose edges are right, and what is wrong with the others."""
    producer = {o: n.name for n in model.graph.node for o in n.output}
    consumers = {}
    for n in model.graph.node:
        for i in n.input:
            consumers.setdefault(i, set()).add(n.name)
    right, wrong = [], []
    for v in added:
        want = edge_label(v)
        labels = [lb["text"] for lb in drawn["labels"] if lb["id"] == f"edge-label-edge-{v.name}"]
        ends = [tuple(node_at(drawn["nodes"], p) for p in e["ends"]) for e in drawn["edges"]
                if e["id"] == f"edge-{v.name}"]
        # Netron's ids of named nodes (the graphs checked here name every node)
        want_ends = {(f"node-name-{producer.get(v.name)}", f"node-name-{c}") for c in consumers.get(v.name, ())}
        if not labels or any(t != want for t in labels):
            wrong.append(f"{v.name}: labels {labels}, want {want!r}")
        elif len(labels) != len(ends) or set(ends) != want_ends:
            wrong.append(f"{v.name}: {len(labels)} labels on edges {sorted(ends, key=str)}, want {sorted(want_ends)}")
        else:
            right.append(v.name)
    return right, wrong


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
                shown = {}
                for which, path in (("original", model), ("annotated", out)):
                    srv = netron.start(path, ("localhost", free_port()), browse=False)
                    url = f"http://{srv[0]}:{srv[1]}/" if isinstance(srv, tuple) else f"http://localhost:{srv}/"
                    n = page.open(url)
                    check(f"{name} ({which}): Netron draws the graph", bool(n), str(n))
                    check(f"{name} ({which}): Netron lays the graph out", bool(page.wait(LAID_OUT_JS)))
                    shown[which] = edge_problems(page.js(GRAPH_JS) or {"nodes": [], "edges": [], "labels": []},
                                                 annotated, added)
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
                    right, wrong = shown["annotated"]
                    check(f"{name}: every added shape on its edge, from its producer to its consumers "
                          f"({len(right)} of {len(added)})", len(right) == len(added) and len(added) > 0,
                          "; ".join(wrong[:5]))
                    check(f"{name}: the original shows fewer of them ({len(shown['original'][0])})",
                          len(shown["original"][0]) < len(added))
        finally:
            chrome.kill()
            chrome.wait()
    print("netron_check:", "FAILED" if failures else "ok", f"({failures} failures)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
