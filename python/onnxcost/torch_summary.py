"""onnxcost.summary: a torchinfo-style table for a torch.nn.Module.

The module is exported to ONNX in memory with torch.onnx.export and the
graph analyzed by the C library, so every operation the forward pass
performs is counted where it runs: attention's QK^T and AV products,
functional calls, einsum, in-place arithmetic. Hook-based tools see only
nn.Module calls (torchinfo reports ViT-B/16 at 0.17 G mult-adds; the
forward pass does 17.6 G; docs/PYTHON.md).
"""
from __future__ import annotations

import io

from . import Analysis, analyze

# torchinfo's col_names as the table's columns (onnxcost's own names pass as they are)
_COLUMNS = {"input_size": "input", "output_size": "output", "num_params": "params", "params_percent": "params%",
            "mult_adds": "macs"}
_OWN_COLUMNS = ("input", "output", "params", "params%", "macs", "macs%", "flops", "bytes")


def _inputs(input_size, input_data, batch_dim, dtypes, device, kwargs):
    """The positional and keyword arguments of the forward pass."""
    import torch

    if input_data is not None:
        if isinstance(input_data, dict):
            return (), {**input_data, **kwargs}
        if isinstance(input_data, (list, tuple)):
            return tuple(input_data), dict(kwargs)
        return (input_data,), dict(kwargs)
    if input_size is None:
        raise ValueError("summary needs input_size or input_data")
    sizes = [input_size] if all(isinstance(d, int) for d in input_size) else list(input_size)
    dtypes = list(dtypes) if dtypes is not None else [torch.float32] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"dtypes has {len(dtypes)} entries for {len(sizes)} inputs")
    args = []
    for size, dt in zip(sizes, dtypes):
        size = list(size)
        if batch_dim is not None:
            size.insert(batch_dim, 1)
        if dt.is_floating_point:
            args.append(torch.rand(size, dtype=dt, device=device))
        else:
            args.append(torch.zeros(size, dtype=dt, device=device))
    return tuple(args), dict(kwargs)


def export(model, args=(), kwargs=None, dynamic_axes=None, input_names=None, output_names=None,
           opset_version=None, **export_kwargs) -> bytes:
    """The module exported by torch.onnx.export (eval mode) as ONNX bytes."""
    import torch

    buf = io.BytesIO()
    was_training = model.training
    model.eval()
    try:  # not under no_grad: inference fast paths (nn.MultiheadAttention's) have no ONNX export
        torch.onnx.export(model, tuple(args) + (dict(kwargs or {}),), buf, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes, opset_version=opset_version,
                          do_constant_folding=True, **export_kwargs)
    finally:
        model.train(was_training)
    return buf.getvalue()


# torchinfo.summary's arguments onnxcost does not take, and why (refused, never ignored)
_REFUSED = {
    "mode": "the export always runs the module in eval mode (training memory: onnxcost MODEL --training)",
    "row_settings": "rows are onnxcost's (depth= for module rows, verbose=2 for node rows)",
    "col_width": "columns are sized to their contents",
    "cache_forward_pass": "each call exports the module again",
}


def module_params(model) -> dict:
    """The module's parameters as torchinfo counts them: each shared tensor once,
    trainable when it requires grad; buffers (BatchNorm's running stats) are not
    parameters."""
    seen, trainable, frozen = set(), 0, 0
    for p in model.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        if p.requires_grad:
            trainable += p.numel()
        else:
            frozen += p.numel()
    return {"total": trainable + frozen, "trainable": trainable, "non_trainable": frozen}


def _lead_with_module(text: str, counts: dict, graph_params: int) -> str:
    """The table's parameter lines say the module's counts (torchinfo's), the
    exported graph's beside them."""
    lines = text.split("\n")
    keys = ("Total params: ", "Trainable params: ", "Non-trainable params: ")
    at = [i for i, ln in enumerate(lines) if ln.startswith(keys[0])]
    if not at or [ln.split(":")[0] + ": " for ln in lines[at[0]:at[0] + 3]] != list(keys):
        raise AssertionError("the text report has no totals block")  # the report's layout changed
    i = at[0]
    why = "" if graph_params == counts["total"] else (
        " (an eval export folds BatchNorm into Conv and stores equal tensors once)")
    lines[i:i + 3] = [f"Total params: {counts['total']:,}",
                      f"Trainable params: {counts['trainable']:,}",
                      f"Non-trainable params: {counts['non_trainable']:,}",
                      f"Exported graph params: {graph_params:,}{why}"]
    return "\n".join(lines)


def summary(model, input_size=None, input_data=None, batch_dim=None, col_names=None, depth=3, device=None,
            dtypes=None, verbose=1, *, mode=None, row_settings=None, col_width=None, cache_forward_pass=None,
            dims=None, batch=None, gpu=None, dtype=None, dynamic_axes=None,
            input_names=None, output_names=None, opset_version=None, save_onnx=None, **kwargs) -> Analysis:
    """Exports ``model`` with torch.onnx, analyzes it, prints the table, returns the Analysis.

    The parameter lines are the module's, as torchinfo counts them (trainable
    and not; ``a.module_params``), with the exported graph's count beside
    them (an eval export folds BatchNorm into Conv); MACs, FLOPs, shapes and
    memory are the exported graph's.

    Like torchinfo.summary:
      input_size   shape of the input, or a list of shapes (random tensors of dtypes)
      input_data   the inputs themselves: a tensor, a list of tensors, or a dict of
                   keyword arguments (a Hugging Face model's input_ids, attention_mask)
      batch_dim    insert a dimension of size 1 at this index of every input_size
      col_names    the table's columns: torchinfo's "input_size", "output_size",
                   "num_params", "params_percent", "mult_adds", or onnxcost's "flops",
                   "bytes", "macs%" (kernel_size and trainable are refused, not ignored);
                   module rows (depth) have no shapes
      depth        module rows down to this depth (node-name scopes); 0 lists nodes
      device       the module and the inputs are moved there, as torchinfo does (the
                   export runs there)
      dtypes       torch dtypes of the input_size tensors (default float32)
      verbose      0 prints nothing, 1 prints the table, 2 the node table whatever depth
      **kwargs     more keyword arguments of the forward pass
    torchinfo's mode, row_settings, col_width and cache_forward_pass are refused
    with a line saying why.
    onnxcost's own:
      dims, batch, gpu, dtype   as in onnxcost.analyze (bind dims, predict time, re-price)
      dynamic_axes, input_names, output_names, opset_version   passed to torch.onnx.export:
                   dims named in dynamic_axes stay symbolic and the costs print as
                   exact formulas in them
      save_onnx    also write the exported model to this path
    """
    for name, value in (("mode", mode), ("row_settings", row_settings), ("col_width", col_width),
                        ("cache_forward_pass", cache_forward_pass)):
        if value is not None:
            raise ValueError(f"summary: torchinfo's {name}= is not supported: {_REFUSED[name]}")
    columns = None
    if col_names is not None:
        bad = [c for c in col_names if c not in _COLUMNS and c not in _OWN_COLUMNS]
        if bad:
            raise ValueError(f"col_names: {bad[0]!r} is not a column onnxcost has (torchinfo's "
                             f"{', '.join(_COLUMNS)}, or {', '.join(_OWN_COLUMNS)})")
        columns = [_COLUMNS.get(c, c) for c in col_names]
        if depth and verbose != 2 and {"input", "output"} & set(columns):
            raise ValueError("col_names input_size/output_size: module rows (depth) have no shapes; "
                             "use depth=0 or verbose=2 for node rows")
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 0, 1 or 2, not {verbose!r}")
    if device is not None:
        model = model.to(device)
    args, kw = _inputs(input_size, input_data, batch_dim, dtypes, device, kwargs)
    data = export(model, args, kw, dynamic_axes=dynamic_axes, input_names=input_names, output_names=output_names,
                  opset_version=opset_version)
    if save_onnx is not None:
        with open(save_onnx, "wb") as f:
            f.write(data)
    name = f"{type(model).__name__} (torch.onnx export)"
    a = analyze(data, dims=dims, batch=batch, gpu=gpu, dtype=dtype, depth=(depth or None) if verbose != 2 else None,
                name=name)
    # what torchinfo counts: the module's parameters, each shared one once
    a.module_params = module_params(model)
    a.torch_params = a.module_params["total"]
    if verbose:
        print(_lead_with_module(a.to_text(columns=columns), a.module_params, a.params), end="")
    return a
