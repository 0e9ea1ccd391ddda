"""Every command of the onnxcost executable, from Python.

Each function builds the command line the CLI would be given and runs it in
this process (``_core.main``: the executable's own code, its report and its
diagnostic lines captured in memory). Options are keywords named as the
CLI's long options with ``_`` for ``-``: ``max_macs="2G"`` is
``--max-macs 2G``, ``True`` is a flag, a list repeats the option. ``dims``
binds dims as ``--dim`` does: ``{"batch": 8}``, a grid ``{"batch": [1, 8]}``
(sweep), a range ``{"batch": (1, 64)}`` (LO:HI, ranges).

Every call returns a :class:`Report`: the command's JSON document as
``to_dict()`` and as attributes, ``to_json()``, ``str()`` (the CLI's text,
byte for byte), ``to_markdown()``, ``to_csv()`` and ``to_html()`` where the
command has them, ``to_pandas()``, and ``_repr_html_`` for Jupyter. Other
formats are rendered from the same command line when first asked for.

Errors follow the CLI's exit codes, all subclasses of ``onnxcost.Error``:
2 raises ``ModelError`` (the file) or ``UsageError`` (an option), 1 and 4
raise ``BudgetError`` (with ``.report``), 3 raises ``Error``. Warning lines
become Python warnings; notes stay in ``Report.diagnostics``.
"""
from __future__ import annotations

import os
import warnings

from . import _core
from ._core import Error, ModelError

__all__ = ["Report", "UsageError", "BudgetError", "OnnxcostWarning", "run", "sweep", "compare", "llm", "measure",
           "plan", "lint", "ranges", "replay", "probe", "calibrate", "merge", "ops"]


class UsageError(Error, ValueError):
    """An option or argument the command refused (the CLI's exit code 2 on usage)."""


class BudgetError(Error):
    """A budget was exceeded (exit code 1) or cannot be verified on an incomplete
    analysis (exit code 4). ``.report`` is the report, ``.exit_code`` the code."""

    def __init__(self, message, report, exit_code):
        super().__init__(message)
        self.report = report
        self.exit_code = exit_code


class OnnxcostWarning(UserWarning):
    """A warning line of the CLI ("onnxcost: warning: ...")."""


# the formats each command renders (its --format), and the rows to_pandas() shows by default
_FORMATS = {
    "analyze": ("text", "json", "md", "csv", "html"),
    "measure": ("text", "json", "md", "csv", "html"),
    "sweep": ("text", "json", "md", "csv", "html"),
    "compare": ("text", "json", "md", "csv", "html"),
    "llm": ("text", "json", "md", "html"),
    "plan": ("text", "json", "md", "csv", "html"),
    "lint": ("text", "json", "md", "sarif", "html"),
    "replay": ("text", "json", "md", "html"),
    "merge": ("text", "json", "md"),
    "calibrate": ("text", "json", "md"),
    "probe": ("text", "json"),
    "ops": ("text", "md"),
}
_ROWS = {"analyze": "nodes", "measure": "nodes", "sweep": "rows", "compare": "models", "plan": "buffers", "lint": "findings",
         "replay": "nodes", "merge": "nodes", "calibrate": "nodes", "llm": "llm.decode_table"}


def _progress_callback(progress):
    """progress: None/True (tqdm when installed, else nothing), False (nothing), or a
    callable(what, done, total). Returns (callback or None, closer)."""
    if callable(progress):
        return progress, lambda: None
    if progress is False:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, lambda: None
    bars = {}

    def update(what, done, total):
        bar = bars.get(what)
        if bar is None:
            bar = bars[what] = tqdm(total=total, desc=what, unit="step", leave=False, delay=0.5)
        bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def close():
        for bar in bars.values():
            bar.close()

    return update, close


def _option_args(options: dict) -> list:
    args = []
    for key, value in options.items():
        if key in ("format", "output", "o"):
            raise TypeError(f"{key}=: the report is rendered on demand (to_json(), to_html(), save(path, format))")
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, _arg(v)]
        else:
            args += [flag, _arg(value)]
    return args


def _arg(v) -> str:
    if isinstance(v, bool):
        raise TypeError("a flag takes True or False, not a list of bools")
    if isinstance(v, os.PathLike):
        return os.fsdecode(v)
    return str(v)


def _dim_args(dims) -> list:
    """{"batch": 8} -> --dim batch=8; a list -> batch=1,2,4 (a grid); a tuple
    (lo, hi) or a range -> batch=lo:hi (every binding between)."""
    if dims is None:
        return []
    if not isinstance(dims, dict):
        raise TypeError(f"dims must be a dict {{name: value}}, not {type(dims).__name__}")
    args = []
    for name, v in dims.items():
        if isinstance(v, range):
            if v.step != 1 or not len(v):
                raise ValueError(f"dims[{name!r}]: a range must be contiguous and non-empty")
            v = (v.start, v.stop - 1)
        if isinstance(v, tuple):
            if len(v) != 2:
                raise ValueError(f"dims[{name!r}]: a range is (lo, hi), not {v!r}")
            value = f"{v[0]}:{v[1]}"
        elif isinstance(v, list):
            value = ",".join(str(x) for x in v)
        else:
            value = str(v)
        args.append(f"--dim={name}={value}")
    return args


class _ModelFile:
    """A model argument as a path: a path as given, bytes or an onnx.ModelProto
    written to a temporary file (removed when the report is released)."""

    def __init__(self, model):
        self.tmpdir = None
        if isinstance(model, (str, os.PathLike)):
            self.path = os.fsdecode(model)
            return
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
        elif callable(getattr(model, "SerializeToString", None)):
            data = model.SerializeToString()
        else:
            raise TypeError(f"model must be a path, bytes or an onnx.ModelProto, not {type(model).__name__}")
        import tempfile
        self.tmpdir = tempfile.mkdtemp(prefix="onnxcost-")
        self.path = os.path.join(self.tmpdir, "model.onnx")
        with open(self.path, "wb") as f:
            f.write(data)

    def release(self):
        if self.tmpdir:
            import shutil
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


def _raise_for(rc, diagnostics, command, paths, report=None):
    errors = [ln for ln in diagnostics.splitlines() if ln.startswith("onnxcost: error: ")]
    budget = [ln for ln in diagnostics.splitlines() if ln.startswith("onnxcost: budget")]
    if rc in (1, 4):
        raise BudgetError("\n".join(budget) or f"onnxcost {command}: exit {rc}", report, rc)
    message = "\n".join(errors) or diagnostics.strip() or f"onnxcost {command}: exit {rc}"
    if rc == 2:
        first = errors[0][len("onnxcost: error: "):] if errors else ""
        runtime = command in ("measure", "replay") and any(
            w in first for w in ("ONNX Runtime", "Python", "plugin", "GPU", "CUDA"))
        if any(p and first.startswith(p + ":") for p in paths) and not runtime:
            raise ModelError(message)
        if runtime:  # the model may be fine: what would run it (Python, ONNX Runtime, a GPU) is missing
            raise Error(message)
        raise UsageError(message)
    raise Error(message)


def _warn(diagnostics):
    from . import IncompleteAnalysisWarning
    for line in diagnostics.splitlines():
        if line.startswith("onnxcost: warning: "):
            cls = IncompleteAnalysisWarning if "lower bound" in line else OnnxcostWarning
            warnings.warn(line[len("onnxcost: warning: "):], cls, stacklevel=4)


class Report:
    """What one command reported. ``command`` and ``argv`` say what ran;
    ``exit_code`` (0, or 1/4 on a BudgetError's report) and ``diagnostics``
    (its stderr lines) what it said beside the report; the JSON document's
    members read as attributes (``r.rows``, ``r.findings``, ...)."""

    def __init__(self, command, argv, exit_code, diagnostics, rendered, owned=(), rerender=None):
        self.command = command
        self.argv = list(argv)
        self.exit_code = exit_code
        self.diagnostics = diagnostics.splitlines()
        self._rendered = dict(rendered)
        self._owned = list(owned)
        self._rerender = rerender  # fmt -> argv rendering that format (measure: the saved run)
        self._dict = None

    def __del__(self):
        for o in getattr(self, "_owned", ()):
            o.release()

    # --- the reports -------------------------------------------------------
    @property
    def formats(self) -> tuple:
        return _FORMATS.get(self.command, ("text", "json"))

    def render(self, fmt: str) -> str:
        """The report in a format of the command's --format, as the CLI writes it."""
        if fmt not in self.formats:
            raise ValueError(f"onnxcost {self.command} writes {', '.join(self.formats)}, not {fmt!r}")
        if fmt not in self._rendered:
            argv = self._rerender(fmt) if self._rerender else self.argv + ["--format", fmt]
            rc, out, diag = _core.main(argv)
            if rc not in (0, 1, 4):
                _raise_for(rc, diag, self.command, [])
            self._rendered[fmt] = out.decode("utf-8", "replace")
        return self._rendered[fmt]

    def to_text(self) -> str:
        return self.render("text")

    def to_json(self) -> str:
        return self.render("json")

    def to_markdown(self) -> str:
        return self.render("md")

    def to_csv(self) -> str:
        return self.render("csv")

    def to_html(self) -> str:
        return self.render("html")

    def to_dict(self) -> dict:
        if self._dict is None:
            import json
            self._dict = json.loads(self.to_json())
        return self._dict

    def save(self, path, format: str = None) -> None:
        """Writes the report to path (format: by its extension, else json)."""
        path = os.fspath(path)
        if format is None:
            ext = os.path.splitext(path)[1].lstrip(".").lower()
            format = {"txt": "text", "markdown": "md", "htm": "html"}.get(ext, ext)
            if format not in self.formats:
                format = "json"
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.render(format))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        d = self.to_dict()
        if isinstance(d, dict) and name in d:
            return d[name]
        raise AttributeError(f"'{self.command}' report has no member {name!r}")

    def to_pandas(self, rows: str = None):
        """A pandas DataFrame of one list of objects in the JSON document, named
        by its dotted path: by default the command's main rows (sweep: rows,
        compare: models, plan: buffers, lint: findings, llm: llm.decode_table,
        analyze/measure/replay: nodes); nested objects become ``parent.child``
        columns. Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        rows = rows or _ROWS.get(self.command)
        lists = []

        def walk(d, prefix):  # every list of objects in the document, by its dotted path
            for k, v in d.items():
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    lists.append(prefix + k)
                elif isinstance(v, dict):
                    walk(v, prefix + k + ".")

        walk(self.to_dict(), "")
        if rows not in lists:
            raise ValueError(f"rows must be one of {', '.join(lists) or '(none)'}, not {rows!r}")
        value = self.to_dict()
        for part in rows.split("."):
            value = value[part]
        return pd.json_normalize(value)

    # --- display -----------------------------------------------------------
    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        if "html" in self.formats:
            return self.to_html()
        import html
        return "<pre>" + html.escape(self.to_text()) + "</pre>"

    def _repr_markdown_(self) -> str:
        if "md" in self.formats:
            return self.to_markdown()
        return "```\n" + self.to_text() + "\n```"

    def __repr__(self) -> str:
        state = f", exit {self.exit_code}" if self.exit_code else ""
        return f"<onnxcost {self.command} report{state}: {' '.join(self.argv[1:3])}>"


def run(*argv, progress=None) -> tuple:
    """The lowest level: any command line (without the program's name), run in
    this process. Returns (exit_code, report text, diagnostics) as the
    executable would have printed them; raises nothing for a non-zero code."""
    cb, close = _progress_callback(progress)
    try:
        rc, out, diag = _core.main([os.fsdecode(a) if isinstance(a, os.PathLike) else str(a) for a in argv], cb)
    finally:
        close()
    return rc, out.decode("utf-8", "replace"), diag


def _command(command, models, options, dims=None, progress=False, first="json", owned=(), rerender=None):
    files = [m if isinstance(m, _ModelFile) else _ModelFile(m) for m in models]
    owned = [*files, *owned]
    argv = [command, *[f.path for f in files], *_dim_args(dims), *_option_args(options)]
    fmt = first if first in _FORMATS.get(command, ("text", "json")) else "text"
    cb, close = _progress_callback(progress)
    try:
        rc, out, diag = _core.main(argv + ["--format", fmt], cb)
    except BaseException:  # no report will own the temporary files
        for o in owned:
            o.release()
        raise
    finally:
        close()
    report = Report(command, argv, rc, diag, {fmt: out.decode("utf-8", "replace")}, owned, rerender)
    if rc != 0:
        _raise_for(rc, diag, command, [f.path for f in files], report)
    _warn(diag)
    return report


def sweep(model, dims: dict, progress=None, **options) -> Report:
    """``onnxcost sweep``: totals over a grid, ``dims={"batch": [1, 8, 64]}``.
    The table (``rows``) against the first dim; html has the charts."""
    return _command("sweep", [model], options, dims, progress)


def compare(*models, dims: dict = None, **options) -> Report:
    """``onnxcost compare``: side-by-side totals of several models, with ratios."""
    if len(models) == 1 and isinstance(models[0], (list, tuple)):
        models = tuple(models[0])
    return _command("compare", models, options, dims)


def llm(model, dims: dict = None, **options) -> Report:
    """``onnxcost llm``: the generation view of a decoder (prefill, decode per
    token, KV cache), e.g. ``gpu="h100-sxm", context=2048``."""
    return _command("llm", [model], options, dims)


def ranges(model, dims: dict, **options) -> Report:
    """``onnxcost analyze`` over ranges, ``dims={"batch": (1, 64)}``: every figure's
    bounds over the box (the ``ranges`` member), budgets proven for all of it."""
    return _command("analyze", [model], options, dims)


def plan(model, dims: dict = None, **options) -> Report:
    """``onnxcost plan``: a static memory plan, an offset for every activation tensor."""
    return _command("plan", [model], options, dims)


def lint(model, dims: dict = None, **options) -> Report:
    """``onnxcost lint``: what to change in the model and what each change saves
    (``findings``); ``select=``/``ignore=`` as the CLI's --select/--ignore."""
    return _command("lint", [model], options, dims)


def measure(model, dims: dict = None, python=None, progress=None, **options) -> Report:
    """``onnxcost measure``: runs the model in ONNX Runtime and returns the
    analysis of the graph it ran with each node's measured time. ``python``
    is the interpreter with onnxruntime (default: this one). ``progress``:
    a tqdm bar over the runs when tqdm is installed (False: none). Other
    formats are rendered from the saved run, not by measuring again."""
    import shutil
    import sys
    import tempfile
    saved = tempfile.mkdtemp(prefix="onnxcost-measure-")

    class _Dir:
        def release(self):
            shutil.rmtree(saved, ignore_errors=True)

    holder = _Dir()
    if "save" in options:
        raise TypeError("save=: the run is kept while the report lives; Report.save() writes the report")
    options = dict(options, python=python or sys.executable, save=saved)
    file = _ModelFile(model)
    stem = os.path.basename(file.path)
    stem = stem[:-5] if stem.endswith(".onnx") else stem
    rest = {k: v for k, v in options.items() if k not in ("python", "save", "ep", "threads", "reps", "warmup",
                                                         "opt_level", "input", "batch")}

    def rerender(fmt):
        # the report of the run kept in `saved`, bound as the first report was
        d = report.to_dict()
        binds = {k: v for k, v in (d.get("bindings") or {}).items()}
        return ["analyze", os.path.join(saved, stem + ".ort.onnx"), "--measured",
                os.path.join(saved, stem + ".profile.json"), *_dim_args(binds), *_option_args(rest), "--format", fmt]

    try:
        report = _command("measure", [file], options, dims, progress, owned=[holder], rerender=rerender)
    except BaseException:
        holder.release()
        raise
    return report


def replay(model, dims: dict = None, progress=None, **options) -> Report:
    """``onnxcost replay``: each node run on an NVIDIA GPU under CUPTI (needs the
    GPU plugin and a GPU; without one it raises the CLI's one line)."""
    return _command("replay", [model], options, dims, progress)


def probe(**options) -> Report:
    """``onnxcost probe``: this machine's roofs (FLOP/s, cache and DRAM bandwidth)."""
    return _command("probe", [], options)


def calibrate(*results, **options) -> Report:
    """``onnxcost calibrate RESULT.json ...``: the performance model fitted to replay
    or measure results."""
    return _command("calibrate", results, options, first="text")


def merge(*results, **options) -> Report:
    """``onnxcost merge RESULT.json ...``: replay results of several GPUs side by side."""
    return _command("merge", results, options)


def ops(**options) -> Report:
    """``onnxcost ops``: the operators and versions onnxcost has rules for."""
    return _command("ops", [], options, first="text")
