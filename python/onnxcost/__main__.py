"""The onnxcost command of the wheel: ``onnxcost ARGS`` or ``python -m onnxcost ARGS``.

It runs the executable's own code (cli/, through ``_core.main``) in this
process with its standard output and error, so every command, option,
message and exit code is the CLI's. ``onnxcost measure`` runs ONNX
Runtime in this interpreter unless ``--python`` or ONNXCOST_PYTHON names
another.
"""
import os
import sys

from . import _core


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("ONNXCOST_PYTHON", sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    rc, _, _ = _core.main(argv, None, False)
    return rc


if __name__ == "__main__":
    sys.exit(main())
