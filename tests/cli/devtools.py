"""One Chromium tab over the DevTools protocol, for the tests that read a
rendered page back (tests/cli/html_check.py, tests/cli/netron_check.py)."""
import json
import time
import urllib.request


class Page:
    def __init__(self, port, websocket):
        """websocket: the websocket-client module, imported by the caller
        (which skips the whole test when it is missing)."""
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
        """expr's value once it is truthy, or None after `seconds`"""
        end = time.time() + seconds
        while time.time() < end:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.2)
        return None

    def open(self, url):
        self.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")
