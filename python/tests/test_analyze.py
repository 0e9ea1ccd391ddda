"""onnxcost.analyze: the library in process, against hand-derived figures
and against the CLI's reports on the same files."""
import glob
import json
import os
import warnings

import pytest

import onnxcost
from conftest import MNIST, REPO, cli, cli_json

# torchsummary_net by hand: conv1 10x24x24 outputs x 1x5x5, conv2 20x8x8 x
# 10x5x5, fc1 320->50, fc2 50->10
MNIST_MACS = 10 * 24 * 24 * 25 + 20 * 8 * 8 * 250 + 320 * 50 + 50 * 10
MNIST_PARAMS = (10 * 25 + 10) + (20 * 250 + 20) + (320 * 50 + 50) + (50 * 10 + 10)

CORPUS = sorted(glob.glob(os.path.join(REPO, "fixtures", "corpus", "*", "*.onnx")))


def test_hand_figures():
    a = onnxcost.analyze(MNIST, batch=8)
    assert a.macs == 8 * MNIST_MACS
    assert a.params == MNIST_PARAMS
    assert a.complete
    assert a.bindings == {"batch": 8}
    assert a.nodes[0]["outputs"][0]["shape"] == [8, 10, 24, 24]


def test_symbolic_formulas_when_unbound():
    a = onnxcost.analyze(MNIST)
    assert a.symbolic["dims"] == ["batch"]
    assert a.symbolic["totals"]["macs"] == f"{MNIST_MACS}*batch"
    assert onnxcost.analyze(MNIST, symbolic=False).symbolic is None


@pytest.mark.parametrize("opts,flags", [
    ({}, []),
    ({"batch": 4, "depth": 2}, ["--batch", "4", "--depth", "2"]),
    ({"gpu": "h100", "dtype": "fp16"}, ["--gpu", "h100", "--dtype", "fp16"]),
])
@pytest.mark.parametrize("path", [MNIST] + CORPUS[::4])
def test_same_document_as_the_cli(path, opts, flags):
    """Every member of the JSON report, and every report format, as the CLI writes it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", onnxcost.IncompleteAnalysisWarning)
        a = onnxcost.analyze(path, **opts)
    assert a.to_dict() == cli_json(path, *flags)
    assert json.loads(a.to_json()) == a.to_dict()
    for fmt, method in (("text", "to_text"), ("md", "to_markdown"), ("csv", "to_csv"), ("html", "to_html"),
                        ("html", "_repr_html_"), ("md", "_repr_markdown_")):
        assert getattr(a, method)() == cli(path, *flags, "--format", fmt, "-q").stdout, method
    assert str(a) == a.to_text()


def test_columns_as_the_cli():
    a = onnxcost.analyze(MNIST, batch=2)
    for cols in ("flops", "input,output,bytes", "params%,macs%"):
        assert a.to_text(columns=cols) == cli(MNIST, "--batch", "2", "--columns", cols, "-q").stdout
    assert a.to_text(columns=["macs", "flops"]) == a.to_text(columns="macs,flops")
    with pytest.raises(ValueError, match="unknown column 'kernel'"):
        a.to_text(columns="kernel")
    with pytest.raises(ValueError, match="module rows"):
        onnxcost.analyze(MNIST, depth=1).to_text(columns="output")


@pytest.mark.parametrize("opts,flags", [({}, []), ({"batch": 4, "gpu": "h100"}, ["--batch", "4", "--gpu", "h100"])])
def test_annotate_as_the_cli(tmp_path, opts, flags):
    """The same bytes as `onnxcost annotate`, from a path and from bytes;
    the file passes onnx.checker (oracle.annotate checks the rest)."""
    want = tmp_path / "cli.onnx"
    cli("annotate", MNIST, "-o", want, "-q", *flags)
    for source in (MNIST, open(MNIST, "rb").read()):
        out = tmp_path / "py.onnx"
        stats = onnxcost.analyze(source, **opts).annotate(out)
        assert out.read_bytes() == want.read_bytes()
        assert stats["nodes"] == 12 and stats["shapes_added"] == 11 and stats["bytes"] == out.stat().st_size
    onnxcost.analyze(MNIST).annotate(out, shapes=False)
    onnx = pytest.importorskip("onnx")
    m = onnx.load(str(out))
    onnx.checker.check_model(m)
    assert not m.graph.value_info and all(n.metadata_props for n in m.graph.node)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".onnxcost-annotate")]
    with pytest.raises(OSError):
        onnxcost.analyze(MNIST).annotate(tmp_path / "no" / "such" / "dir.onnx")
    # the mode of the file replaced is kept, and a symlink keeps pointing at the file
    target, link = tmp_path / "m.onnx", tmp_path / "link.onnx"
    target.write_bytes(open(MNIST, "rb").read())
    os.chmod(target, 0o751)
    link.symlink_to(target)
    onnxcost.analyze(MNIST).annotate(link)
    assert link.is_symlink() and os.stat(target).st_mode & 0o7777 == 0o751
    assert len(onnx.load(str(target)).graph.value_info) == 11


def test_bytes_and_modelproto_equal_the_path():
    onnx = pytest.importorskip("onnx")
    ref = onnxcost.analyze(MNIST, batch=2)
    data = open(MNIST, "rb").read()
    for source in (data, bytearray(data), memoryview(data), onnx.load(MNIST)):
        a = onnxcost.analyze(source, batch=2)
        assert a.totals == ref.totals
        assert [n["macs"] for n in a.nodes] == [n["macs"] for n in ref.nodes]
    assert onnxcost.analyze(data).model["path"] == "<bytes>"
    assert onnxcost.analyze(data, name="net").model["path"] == "net"


def test_dims_bind_named_dims():
    gpt2 = [p for p in CORPUS if "gpt2" in p][0]
    dims = {"batch_size": 2, "seq_len": 7, "past_seq_len": 5, "total_seq_len": 12}
    a = onnxcost.analyze(gpt2, dims=dims)
    flags = [f for k, v in dims.items() for f in ("--dim", f"{k}={v}")]
    assert a.totals == cli_json(gpt2, *flags)["totals"]
    assert a.symbolic is None


def test_incomplete_analysis_is_flagged():
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w", TensorProto.FLOAT, [8, 8], [0.0] * 64)
    g = helper.make_graph([helper.make_node("Mystery", ["x"], ["t"], domain="example.custom"),
                           helper.make_node("MatMul", ["t", "w"], ["y"])], "g", [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)])
    with pytest.warns(onnxcost.IncompleteAnalysisWarning, match="2 nodes without a cost"):
        a = onnxcost.analyze(m)
    assert not a.complete
    assert "lower bounds" in str(a).splitlines()[1]  # said above the table, where the reader starts
    assert ">=" in [l for l in str(a).splitlines() if l.startswith("Total MACs")][0]


def test_bad_files_raise_the_cli_line():
    bad = sorted(glob.glob(os.path.join(REPO, "fixtures", "bad", "*.onnx")))
    assert bad
    refused = 0
    for path in bad:
        r = cli(path, "-q", check=False)
        if r.returncode != 2:
            continue
        refused += 1
        with pytest.raises(onnxcost.ModelError) as e:
            onnxcost.analyze(path)
        assert r.stderr.strip() == f"onnxcost: error: {e.value}", path
        assert isinstance(e.value, ValueError) and isinstance(e.value, onnxcost.Error)
        with pytest.raises(onnxcost.ModelError):  # the same from bytes
            onnxcost.analyze(open(path, "rb").read())
    assert refused >= 10


@pytest.mark.parametrize("data", [b"", b"\x00", b"garbage", bytes(range(256)) * 4, b"\x0a\xff\xff\xff\xff\x0f"])
def test_garbage_bytes(data):
    """Every one of these is refused (the CLI exits 2 on each as a file)."""
    with pytest.raises(onnxcost.ModelError) as e:
        onnxcost.analyze(data)
    assert str(e.value).startswith("<bytes>: ")


def test_missing_file():
    with pytest.raises(onnxcost.Error, match="^/nonexistent/model.onnx: cannot open"):
        onnxcost.analyze("/nonexistent/model.onnx")


@pytest.mark.parametrize("kw,exc,msg", [
    ({"gpu": "nope"}, ValueError, "unknown GPU 'nope'"),
    ({"dtype": "fp7"}, ValueError, "unknown dtype 'fp7'"),
    ({"batch": 0}, ValueError, "batch must be a positive int"),
    ({"depth": 65}, ValueError, "depth must be an int from 1 to 64"),
    ({"batch": True}, ValueError, "batch must be a positive int"),       # a bool is not a size
    ({"batch": 2**63}, ValueError, "batch must be a positive int below 2"),  # not OverflowError
    ({"depth": True}, ValueError, "depth must be an int"),
    ({"dims": ["batch"]}, TypeError, "dims must be a dict"),
    ({"dims": {"batch": -1}}, ValueError, "must be a positive int"),
    ({"dims": {"batch": 0}}, ValueError, "must be a positive int"),          # the CLI refuses --dim batch=0
    ({"dims": {"batch": 2**63}}, ValueError, "must be a positive int below 2"),
    ({"dims": {1: 2}}, TypeError, "names must be str"),
    ({"dims": {"batch": True}}, ValueError, "must be a positive int"),
])
def test_bad_arguments(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        onnxcost.analyze(MNIST, **kw)


def test_wrong_model_type():
    with pytest.raises(TypeError, match="path, bytes or an onnx.ModelProto"):
        onnxcost.analyze(42)


def test_gpu_spec_as_the_cli(tmp_path):
    """gpu_spec= is --gpu-spec: a described device, with the efficiency
    factors a calibration measured (docs/MODEL.md, "Calibration")."""
    spec = tmp_path / "calibrated.json"
    spec.write_text(json.dumps({"name": "Test GPU", "fp32": 50, "tf32_tc": 400, "memory_gib": 40, "bandwidth_gbs": 2000,
                                "efficiency": {"fp32": 0.7, "memory": 0.9, "launch_us": 2.5},
                                "calibration": {"fitted_on": ["r.json"]}}))
    a = onnxcost.analyze(MNIST, batch=2, gpu_spec=spec)
    assert a.to_dict() == cli_json(MNIST, "--batch", "2", "--gpu-spec", str(spec))
    assert a.to_text() == cli(MNIST, "--batch", "2", "--gpu-spec", str(spec), "-q").stdout
    opts = a.to_dict()["gpu"]["options"]
    assert opts["efficiency_units"] == {"FP32": 0.7} and opts["efficiency_memory"] == 0.9
    assert opts["launch_s"] == pytest.approx(2.5e-6)
    # a node's time is the roofline with those factors: FLOPs / (50e12 x 0.7) vs bytes / (2000e9 x 0.9), + 2.5 us
    n = next(n for n in a.nodes if n["op_type"] == "Conv")
    want = max(n["flops"] / (50e12 * 0.7), (n["bytes_read"] + n["bytes_written"]) / (2000e9 * 0.9)) + 2.5e-6
    assert n["gpu"]["time_s"] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="give one"):
        onnxcost.analyze(MNIST, gpu="h100", gpu_spec=spec)
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "fp32": 1, "memory_gib": 1, "bandwidth_gbs": 1, "efficiency": {"fp32": 0}}')
    with pytest.raises(ValueError, match=r"bad.json: bad key 'efficiency.fp32' \(a factor from 0.01 to 10"):
        onnxcost.analyze(MNIST, gpu_spec=bad)


def test_gpus_match_the_cli():
    listed = cli("gpus", "--format", "md").stdout
    for name in onnxcost.gpus():
        assert f"| {name} |" in listed
    assert len(onnxcost.gpus()) >= 5


def test_pandas():
    pytest.importorskip("pandas")
    a = onnxcost.analyze(MNIST, batch=3, depth=1, gpu="a100")
    df = a.to_pandas()
    assert len(df) == len(a.nodes)
    assert int(df["macs"].sum()) == a.macs
    assert df["output_shapes"][0] == [[3, 10, 24, 24]]
    assert {"gpu_" + k for k in a.nodes[0]["gpu"]} <= set(df.columns)
    assert int(a.to_pandas("modules")["params"].sum()) == a.params
    with pytest.raises(ValueError):
        onnxcost.analyze(MNIST).to_pandas("modules")


def test_threads_side_by_side():
    """The GIL is released while the library works: analyses in threads give
    what they give one after the other."""
    from concurrent.futures import ThreadPoolExecutor
    def one(path):
        try:
            return onnxcost.analyze(path, batch=2).to_json()
        except onnxcost.ModelError as e:  # refused files too: the same line
            return str(e)

    paths = [MNIST] + CORPUS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", onnxcost.IncompleteAnalysisWarning)
        serial = [one(p) for p in paths]
        with ThreadPoolExecutor(4) as pool:
            for _ in range(3):
                assert list(pool.map(one, paths)) == serial


def test_handles_outlive_nothing_and_free():
    """Many analyses created and dropped: no crash, results stay independent."""
    kept = [onnxcost.analyze(MNIST, batch=b) for b in range(1, 40)]
    for b, a in enumerate(kept, 1):
        assert a.macs == b * MNIST_MACS
    del kept
    for _ in range(100):
        onnxcost.analyze(MNIST).to_text()


def test_cli_installed_beside_the_package():
    """pip install puts the onnxcost command on PATH next to the interpreter."""
    import shutil
    import sys
    exe = os.path.join(os.path.dirname(sys.executable), "onnxcost")
    if not os.path.exists(exe):
        pytest.skip("not an installed wheel")
    assert shutil.which("onnxcost", path=os.path.dirname(sys.executable))
    import subprocess
    r = subprocess.run([exe, MNIST, "--format", "json", "-q"], capture_output=True, text=True)
    assert json.loads(r.stdout)["totals"]["macs"] == MNIST_MACS
