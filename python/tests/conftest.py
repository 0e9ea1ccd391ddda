"""Shared fixtures: the repository, the CLI built from the same sources
(ONNXCOST_CLI) and a helper that runs it. The package under test is the one
installed in this interpreter (tests/python/run.sh installs the wheel into a
fresh venv); the CLI is an independent oracle for totals and reports only in
the sense that it is a separate program over the same library."""
import json
import os
import subprocess

import pytest

REPO = os.environ.get("ONNXCOST_SRC", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
CLI = os.environ.get("ONNXCOST_CLI", os.path.join(REPO, "build", "onnxcost"))
MNIST = os.path.join(REPO, "fixtures", "mnist", "torchsummary_net.onnx")


def cli(*args, check=True):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode not in (0,):
        raise AssertionError(f"onnxcost {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


def cli_json(*args):
    return json.loads(cli(*args, "--format", "json", "-q").stdout)


@pytest.fixture(scope="session")
def repo():
    return REPO
