"""Every command from Python (onnxcost.sweep, compare, llm, ranges, plan,
lint, measure, ops, run): figures against hand counts, every rendering
against the CLI executable's own output for the same command line, the exit
codes as exceptions, the progress callback, and Jupyter's HTML."""
import glob
import importlib.util
import json
import os
import sys
import threading
import warnings

import pytest

import onnxcost
from conftest import CLI, MNIST, REPO, cli

MNIST_MACS = 10 * 24 * 24 * 25 + 20 * 8 * 8 * 250 + 320 * 50 + 50 * 10
MNIST_PARAMS = (10 * 25 + 10) + (20 * 250 + 20) + (320 * 50 + 50) + (50 * 10 + 10)
GPT2_TINY = os.path.join(REPO, "fixtures", "corpus", "microsoft+onnxruntime-genai",
                         "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx")
CORPUS = sorted(glob.glob(os.path.join(REPO, "fixtures", "corpus", "*", "*.onnx")))


def cli_out(*args):
    r = cli(*args, check=False)
    return r.returncode, r.stdout


# (python call, the same command line for the CLI)
CASES = {
    "sweep": (lambda: onnxcost.sweep(MNIST, {"batch": [1, 2, 8]}), ["sweep", MNIST, "--dim", "batch=1,2,8"]),
    "compare": (lambda: onnxcost.compare(MNIST, GPT2_TINY, batch=2),
                ["compare", MNIST, GPT2_TINY, "--batch", "2"]),
    "llm": (lambda: onnxcost.llm(GPT2_TINY, context=256), ["llm", GPT2_TINY, "--context", "256"]),
    "ranges": (lambda: onnxcost.ranges(MNIST, {"batch": (1, 64)}), ["analyze", MNIST, "--dim", "batch=1:64"]),
    "plan": (lambda: onnxcost.plan(MNIST, dims={"batch": 4}), ["plan", MNIST, "--dim", "batch=4"]),
    "lint": (lambda: onnxcost.lint(GPT2_TINY, batch=1), ["lint", GPT2_TINY, "--batch", "1"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_rendering_is_the_clis(name):
    call, argv = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = call()
    assert r.exit_code == 0
    for fmt in r.formats:
        rc, out = cli_out(*argv, "--format", fmt)
        assert rc == 0
        assert r.render(fmt) == out, fmt
    assert str(r) == r.to_text() == cli_out(*argv)[1]
    assert r.to_dict() == json.loads(cli_out(*argv, "--format", "json")[1])
    html = r._repr_html_()
    assert html.startswith("<!DOCTYPE html>") and html == cli_out(*argv, "--format", "html")[1]
    assert r._repr_markdown_() == cli_out(*argv, "--format", "md")[1]


def test_sweep_figures_by_hand():
    r = onnxcost.sweep(MNIST, {"batch": [1, 2, 8]}, progress=False)
    assert [row["macs"] for row in r.rows] == [b * MNIST_MACS for b in (1, 2, 8)]
    df = r.to_pandas()
    assert list(df["macs"]) == [b * MNIST_MACS for b in (1, 2, 8)]
    assert set(df["params"]) == {MNIST_PARAMS}


def test_ranges_bound_the_box_by_hand():
    r = onnxcost.ranges(MNIST, {"batch": (1, 64)})
    macs = r.ranges["totals"]["macs"]
    assert (macs["min"], macs["max"]) == (MNIST_MACS, 64 * MNIST_MACS), macs
    assert onnxcost.ranges(MNIST, {"batch": range(1, 65)}).to_dict() == r.to_dict()
    with pytest.raises(TypeError, match="ranges"):
        onnxcost.analyze(MNIST, dims={"batch": (1, 64)})


def test_compare_rows_and_pandas():
    r = onnxcost.compare([MNIST, MNIST], batch=3)
    assert [m["macs"] for m in r.models] == [3 * MNIST_MACS] * 2
    assert len(r.to_pandas()) == 2


def test_llm_table_as_pandas():
    r = onnxcost.llm(GPT2_TINY)
    df = r.to_pandas()
    assert len(df) == len(r.llm["decode_table"]) > 0
    assert {"batch", "context", "flops", "bytes"} <= set(df.columns)
    with pytest.raises(ValueError, match="llm.decode_table"):
        r.to_pandas("nope")


def test_plan_and_lint_members():
    p = onnxcost.plan(MNIST, dims={"batch": 1})
    assert p.verified and p.arena_bytes >= p.lower_bound_bytes > 0
    assert len(p.to_pandas()) == len(p.buffers)
    lint = onnxcost.lint(MNIST, batch=1)
    assert lint.findings == [] and lint.counts == {"error": 0, "warning": 0, "note": 0}


def test_models_as_bytes_and_modelproto():
    onnx = pytest.importorskip("onnx")
    data = open(MNIST, "rb").read()
    a = onnxcost.sweep(data, {"batch": [2]})
    b = onnxcost.sweep(onnx.load(MNIST), {"batch": [2]})
    assert a.rows == b.rows and a.rows[0]["macs"] == 2 * MNIST_MACS


def test_errors_follow_the_exit_codes():
    with pytest.raises(onnxcost.UsageError, match="unknown option '--bogus'"):
        onnxcost.sweep(MNIST, {"batch": [1]}, bogus=3)
    with pytest.raises(onnxcost.ModelError, match="nonexistent.onnx: cannot open"):
        onnxcost.plan("nonexistent.onnx")
    bad = sorted(glob.glob(os.path.join(REPO, "fixtures", "bad", "*.onnx")))[0]
    with pytest.raises(onnxcost.ModelError) as e:
        onnxcost.lint(bad)
    assert str(e.value) == cli("lint", bad, check=False).stderr.strip().splitlines()[0]
    with pytest.raises(onnxcost.BudgetError) as e:  # exit 1 at the box's upper corner
        onnxcost.ranges(MNIST, {"batch": (1, 64)}, max_macs=str(MNIST_MACS * 10))
    assert e.value.exit_code == 1 and "at batch=64" in str(e.value)
    assert e.value.report.ranges["totals"]["macs"]["max"] == 64 * MNIST_MACS
    for err in (onnxcost.UsageError, onnxcost.ModelError, onnxcost.BudgetError):
        assert issubclass(err, onnxcost.Error)
    with pytest.raises(TypeError, match="rendered on demand"):
        onnxcost.plan(MNIST, format="json")


def test_warning_lines_become_warnings():
    with pytest.warns(onnxcost.OnnxcostWarning, match="'batch' is unbound"):
        r = onnxcost.plan(MNIST)
    assert r.bindings == {"batch": 1}


def test_run_is_the_executable():
    rc, out, diag = onnxcost.run("ops", "--format", "md")
    assert (rc, out) == cli_out("ops", "--format", "md")
    assert onnxcost.run("--version")[1] == cli_out("--version")[1]
    rc, out, diag = onnxcost.run("analyze", "nonexistent.onnx")
    assert rc == 2 and out == "" and diag.startswith("onnxcost: error: nonexistent.onnx:")


def test_threads_share_the_cli():
    # the CLI's streams are its one state: concurrent calls are serialized, each gets its own report
    out = {}

    def one(b):
        out[b] = onnxcost.sweep(MNIST, {"batch": [b]}).rows[0]["macs"]

    ts = [threading.Thread(target=one, args=(b,)) for b in range(1, 9)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == {b: b * MNIST_MACS for b in range(1, 9)}


def test_progress_callback_and_silence(monkeypatch):
    seen = []
    onnxcost.sweep(MNIST, {"batch": [1, 2, 3, 4]}, progress=lambda w, d, t: seen.append((w, d, t)))
    assert seen == [("sweep", d, 4) for d in range(1, 5)]
    monkeypatch.setitem(sys.modules, "tqdm", None)  # tqdm absent: nothing shown, nothing raised
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    assert onnxcost.sweep(MNIST, {"batch": [1, 2]}).rows[1]["macs"] == 2 * MNIST_MACS


def test_progress_uses_tqdm_when_present(monkeypatch):
    # a stand-in tqdm.auto: the bar is made with the step count and brought to it
    import types
    bars = []

    class Bar:
        def __init__(self, total, desc, **kw):
            self.total, self.desc, self.n, self.closed = total, desc, 0, False
            bars.append(self)

        def update(self, k):
            self.n += k

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm.auto", types.SimpleNamespace(tqdm=Bar))
    onnxcost.sweep(MNIST, {"batch": [1, 2, 3]})
    assert [(b.desc, b.total, b.n, b.closed) for b in bars] == [("sweep", 3, 3, True)]
    bars.clear()
    onnxcost.sweep(MNIST, {"batch": [1, 2, 3]}, progress=False)
    assert bars == []


def test_replay_without_a_gpu_is_not_a_model_error():
    rc, _, diag = onnxcost.run("replay", MNIST, "--batch", "1")
    if rc == 0:
        pytest.skip("a GPU and the replay plugin are here")  # never on the CI machine
    with pytest.raises(onnxcost.Error) as e:
        onnxcost.replay(MNIST, batch=1)
    assert not isinstance(e.value, onnxcost.ModelError) and str(e.value) == diag.strip().splitlines()[0]


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="needs onnxruntime")
def test_measure_runs_ort_and_renders_the_saved_run():
    seen = []
    m = onnxcost.measure(MNIST, batch=2, reps=4, warmup=2, threads=1,
                         progress=lambda w, d, t: seen.append((w, d, t)))
    assert seen == [("measure", d, 4) for d in range(1, 5)]  # the measured runs (--reps 4)
    d = m.to_dict()
    assert d["measured"]["runs"] == 4 and d["measured"]["run"]["warmup_runs_left_out"] == 2
    assert d["measured"]["run"]["intra_op_threads"] == 1
    assert d["measured"]["nodes_matched"] == len(d["nodes"])
    # each node's figures are over its events in the quiet runs (docs/MEASURED.md, "Busy machines")
    quiet = d["measured"]["quiet_runs"]
    assert 1 <= quiet <= 4 and all(n["measured"]["runs"] == quiet for n in d["nodes"])
    # other formats come from the kept run, as `onnxcost analyze --measured` prints it
    argv = m._rerender("text")
    assert str(m) == cli_out(*argv)[1]
    assert m.to_html() == cli_out(*m._rerender("html"))[1]
    saved = argv[1]
    del m
    import gc
    gc.collect()
    assert not os.path.exists(saved)


def test_measure_without_onnxruntime_is_one_line(tmp_path):
    # a Python that exists but cannot import onnxruntime: the driver's one line, as an exception
    fake = tmp_path / "python"
    # -S: no site-packages, so no onnxruntime; PYTHONPATH: the onnxcost package alone (its driver)
    pkg = os.path.dirname(os.path.dirname(onnxcost.__file__))
    fake.write_text(f"#!/bin/sh\nPYTHONPATH={pkg} exec {sys.executable} -S \"$@\"\n")
    fake.chmod(0o755)
    with pytest.raises(onnxcost.Error) as e:
        onnxcost.measure(MNIST, python=str(fake), progress=False)
    msg = str(e.value)
    assert msg.startswith("onnxcost: error: ") and "onnxruntime" in msg and "\n" not in msg
    assert not isinstance(e.value, onnxcost.ModelError)  # the file is fine; its runtime is missing


def _html_rows(page):
    """The cells of every <tr> of an HTML page, as text."""
    from html.parser import HTMLParser

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    p = Rows()
    p.feed(page)
    return p.rows


def test_compare_and_lint_pages_hold_their_tables():
    # compare: one row per model, the MACs column by hand
    page = onnxcost.compare(MNIST, MNIST, batch=3).to_html()
    rows = _html_rows(page)
    assert rows[0][:3] == ["Model", "Params", "MACs"] and len(rows) == 3
    assert rows[1][2].startswith(f"{3 * MNIST_MACS:,}") and rows[2][2].startswith(f"{3 * MNIST_MACS:,} (1.00x)")
    assert "* = smallest in its column" in page
    # lint: one row per finding, in the JSON's order
    r = onnxcost.lint(GPT2_TINY, batch=1)
    rows = _html_rows(r.to_html())
    assert rows[0] == ["Rule", "Level", "Finding", "Saves"]
    assert [row[:2] for row in rows[1:]] == [[f["rule"], f["level"]] for f in r.findings]


def test_llm_page_keeps_the_text_report_line_by_line():
    # the generation view's page carries the text report in a <pre>, its line breaks kept
    import html
    import re
    r = onnxcost.llm(GPT2_TINY)
    pre = re.search(r"<pre>(.*?)</pre>", r.to_html(), re.S).group(1)
    assert html.unescape(pre) == str(r) and len(pre.splitlines()) > 10


@pytest.mark.parametrize("command,args", [
    ("analyze", [MNIST, "--batch", "1"]), ("sweep", [MNIST, "--dim", "batch=1"]), ("compare", [MNIST, MNIST]),
    ("llm", [GPT2_TINY]), ("plan", [MNIST, "--batch", "1"]), ("lint", [MNIST, "--batch", "1"]), ("ops", []),
])
def test_report_formats_are_the_clis(command, args):
    # the formats a Report offers for a command are exactly those its --format accepts
    from onnxcost.commands import _FORMATS
    accepted = tuple(f for f in ("text", "json", "md", "csv", "html", "sarif")
                     if cli(command, *args, "--format", f, check=False).returncode == 0)
    assert sorted(_FORMATS[command]) == sorted(accepted)
