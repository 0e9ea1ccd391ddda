"""onnxcost: shapes, parameters, MACs, FLOPs and memory of an ONNX model.

The analysis runs in the onnxcost C library, in this process: no
subprocess, no weights read, no Python dependency. The results carry the
fields of the CLI's JSON report (docs/JSON.md).

    >>> import onnxcost
    >>> a = onnxcost.analyze("model.onnx", batch=8)
    >>> print(a)                     # the CLI's table
    >>> a.totals["macs"], a.complete
    >>> onnxcost.summary(torch_module, input_size=(1, 3, 224, 224))

Every other command of the CLI is a function of the same name returning a
Report (commands.py): sweep, compare, llm, ranges, plan, lint, measure,
replay, probe, calibrate, merge, ops; ``run(*argv)`` runs any command line.
"""
from __future__ import annotations

import os
import warnings

from . import _core
from ._core import Error, ModelError

__version__ = _core.version
__all__ = ["analyze", "summary", "gpus", "Analysis", "Error", "ModelError", "IncompleteAnalysisWarning",
           "Report", "UsageError", "BudgetError", "OnnxcostWarning", "run", "sweep", "compare", "llm", "ranges",
           "plan", "lint", "measure", "replay", "probe", "calibrate", "merge", "ops"]


class IncompleteAnalysisWarning(UserWarning):
    """Some nodes have no cost: MACs, FLOPs and activation sizes are lower bounds."""


class Analysis:
    """The analysis of one model.

    Attributes, as in the JSON report (docs/JSON.md), each converted from the
    library's values when first read: ``model`` (file facts),
    ``bindings`` (the value of every dim), ``symbolic`` (formulas in the
    unbound dims, or None), ``nodes`` (one dict per node: name, op_type,
    outputs with shapes, params, macs, flops, bytes, status), ``totals``,
    ``op_types``, ``modules`` (with ``depth``, else None), ``gpu`` (with
    ``gpu``, else None), ``coverage`` and ``warnings``.

    ``str(a)`` is the CLI's table; ``a.to_json()``, ``to_markdown()``,
    ``to_csv()`` and ``to_html()`` are its other reports, byte for byte.
    """

    _MEMBERS = ("schema", "model", "bindings", "symbolic", "nodes", "totals", "op_types", "modules", "gpu",
                "coverage", "warnings")

    def __init__(self, handle):
        self._handle = handle

    def __getattr__(self, name):
        # each member is converted when first read (the node rows cost the most)
        if name not in Analysis._MEMBERS:
            raise AttributeError(f"'Analysis' object has no attribute {name!r}")
        value = self._handle.members(name).get(name)
        setattr(self, name, value)
        return value

    @property
    def complete(self) -> bool:
        """False when nodes have no cost: the totals are then lower bounds."""
        return bool(self.totals["complete"])

    @property
    def params(self) -> int:
        return self.totals["params"]

    @property
    def macs(self) -> int:
        return self.totals["macs"]

    @property
    def flops(self) -> int:
        return self.totals["flops"]

    def to_dict(self) -> dict:
        """The JSON report as a dict (the same document as ``json.loads(a.to_json())``)."""
        return self._handle.members()

    def to_text(self, width: int = 0, columns=None) -> str:
        """The CLI's table; ``width`` > 0 fits the node rows to that many columns;
        ``columns`` picks the table's columns as the CLI's --columns does: any of
        "input", "output", "params", "params%", "macs", "macs%", "flops", "bytes"
        (a list or a comma-separated str)."""
        if columns is not None and not isinstance(columns, str):
            columns = ",".join(columns)
        return self._handle.render("text", width, columns)

    def to_json(self) -> str:
        return self._handle.render("json")

    def to_csv(self) -> str:
        return self._handle.render("csv")

    def to_markdown(self) -> str:
        return self._handle.render("md")

    def to_html(self) -> str:
        return self._handle.render("html")

    def annotate(self, path, shapes: bool = True) -> dict:
        """Writes the model with this analysis inside, as ``onnxcost annotate`` does
        (docs/ANNOTATE.md): shapes into value_info (``shapes=False``: costs only),
        each node's costs into its metadata_props, the totals into the model's.
        The file is written beside ``path`` and renamed over it when complete,
        keeping the mode of the file it replaces; weights are copied as bytes.
        Returns counts: nodes, shapes_added, ...
        """
        return self._handle.annotate(os.fspath(path), bool(shapes))

    def to_pandas(self, rows: str = "nodes"):
        """A pandas DataFrame of the node rows (or ``rows="modules"``, ``"op_types"``).

        Node rows keep the JSON fields; ``outputs`` becomes ``output_shapes``
        (one list per output, None where unknown) and a ``gpu`` prediction
        becomes ``gpu_*`` columns. Needs pandas (``pip install onnxcost[pandas]``).
        """
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        if rows == "nodes":
            out = []
            for n in self.nodes:
                r = {k: v for k, v in n.items() if k not in ("outputs", "gpu")}
                r["output_shapes"] = [o.get("shape") for o in n["outputs"]]
                r["output_dtypes"] = [o.get("dtype") for o in n["outputs"]]
                for k, v in (n.get("gpu") or {}).items():
                    r["gpu_" + k] = v
                out.append(r)
            return pd.DataFrame(out)
        if rows == "modules":
            if self.modules is None:
                raise ValueError("no module rows: analyze with depth=N")
            return pd.DataFrame(self.modules)
        if rows == "op_types":
            return pd.DataFrame(self.op_types)
        raise ValueError(f"rows must be 'nodes', 'modules' or 'op_types', not {rows!r}")

    def _repr_html_(self) -> str:
        """Jupyter: the last line of a cell shows the HTML report (``--format html``)."""
        return self.to_html()

    def _repr_markdown_(self) -> str:
        """Markdown front ends: the Markdown report (``--format md``)."""
        return self.to_markdown()

    def __str__(self) -> str:
        return self._handle.render("text")

    def __repr__(self) -> str:
        t = self.totals
        state = "" if self.complete else ", incomplete: lower bounds"
        return (f"<onnxcost.Analysis {self.model['path']!r}: {len(self.nodes)} nodes, "
                f"{t['params']:,} params, {t['macs']:,} MACs{state}>")


def _source(model, name):
    if isinstance(model, (str, os.PathLike)):
        path = os.fsdecode(model)
        return path, name or path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), name or "<bytes>"
    serialize = getattr(model, "SerializeToString", None)
    if callable(serialize):  # an onnx.ModelProto, without importing onnx
        graph = getattr(getattr(model, "graph", None), "name", "") or "model"
        return serialize(), name or f"<ModelProto {graph}>"
    raise TypeError(f"model must be a path, bytes or an onnx.ModelProto, not {type(model).__name__}")


def analyze(model, dims: dict | None = None, batch: int | None = None, gpu: str | None = None,
            dtype: str | None = None, depth: int | None = None, symbolic: bool = True,
            name: str | None = None, gpu_spec: str | os.PathLike | None = None) -> Analysis:
    """Analyzes a model: a path, the file's bytes, or an onnx.ModelProto.

    dims      {name: size} for symbolic dims (the CLI's --dim NAME=SIZE)
    batch     the batch (--batch): each input's dims named like a batch, else its symbolic first dim
    gpu       predict time on a built-in GPU (``gpus()`` lists them; --gpu)
    gpu_spec  the same on a device described in a JSON file, with the efficiency
              factors ``onnxcost calibrate`` measured when it has them (--gpu-spec)
    dtype     price every float tensor as fp64, fp32, fp16, bf16, fp8, int8, int4 (--dtype)
    depth     also group nodes into modules down to this depth (--depth)
    symbolic  keep unbound dims as exact formulas (default, as the CLI does)
    name      the name shown in reports (default: the path, or "<bytes>")

    Raises ModelError (a ValueError) with the CLI's one line when the file is
    refused, and warns IncompleteAnalysisWarning when nodes have no cost.
    """
    for k, v in (dims.items() if isinstance(dims, dict) else ()):
        if isinstance(v, (tuple, list, range)):
            raise TypeError(f"dims[{k!r}] = {v!r}: analyze() binds one value per dim; use onnxcost.ranges() for "
                            "a range (lo, hi) and onnxcost.sweep() for a list of values")
    source, shown = _source(model, name)
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch < 2**63):
        raise ValueError(f"batch must be a positive int below 2**63, not {batch!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 64):
        raise ValueError(f"depth must be an int from 1 to 64, not {depth!r}")
    spec = os.fsdecode(gpu_spec) if gpu_spec is not None else None
    handle = _core.analyze(source, shown, dims, batch or 0, gpu, dtype, depth or 0, bool(symbolic), spec)
    a = Analysis(handle)
    if not a.complete:
        c = a.coverage
        warnings.warn(f"{shown}: incomplete analysis: {c['nodes_without_cost']} of {c['nodes']} nodes without "
                      "a cost; MACs, FLOPs and activation sizes are lower bounds", IncompleteAnalysisWarning,
                      stacklevel=2)
    return a


def gpus() -> list:
    """The names ``gpu=`` accepts (the CLI's ``onnxcost gpus``)."""
    return _core.gpus()


# last: they import from here (torch itself only when called)
from .commands import (BudgetError, OnnxcostWarning, Report, UsageError, calibrate, compare, llm,  # noqa: E402
                       lint, measure, merge, ops, plan, probe, ranges, replay, run, sweep)
from .torch_summary import summary  # noqa: E402
