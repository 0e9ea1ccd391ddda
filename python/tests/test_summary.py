"""onnxcost.summary on modules built in the test: MACs derived by hand (or
by forward hooks where every MAC sits in a Conv2d/Linear), totals equal to
the CLI's on the exported file."""
import re

import pytest

import onnxcost
from conftest import cli_json

torch = pytest.importorskip("torch")


def hook_macs(model, *inputs):
    """MACs of the Conv2d and Linear calls: exact for a convnet, whose every
    multiply-accumulate happens in one of them."""
    total = 0

    def conv(m, i, o):
        nonlocal total
        total += o.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def linear(m, i, o):
        nonlocal total
        total += o.numel() * m.in_features

    hs = [m.register_forward_hook(conv if isinstance(m, torch.nn.Conv2d) else linear)
          for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    model.eval()
    with torch.no_grad():
        model(*inputs)
    for h in hs:
        h.remove()
    return total


def test_torchvision_resnet(tmp_path, capsys):
    tv = pytest.importorskip("torchvision")
    m = tv.models.resnet18()
    saved = tmp_path / "resnet18.onnx"
    a = onnxcost.summary(m, input_size=(1, 3, 224, 224), depth=2, save_onnx=saved)
    out = capsys.readouterr().out
    assert a.macs == hook_macs(m, torch.rand(1, 3, 224, 224))
    assert a.totals == cli_json(saved)["totals"]
    assert a.torch_params == sum(p.numel() for p in m.parameters())
    assert out.splitlines()[1].split()[0] == "Module" and "layer1/layer1.0" in out
    # the module's count leads, as torchinfo prints it (11,689,512); the graph's, from the
    # exported file's initializers (onnx as the oracle), beside it: BatchNorm folded into Conv
    onnx = pytest.importorskip("onnx")
    import math
    graph = sum(math.prod(t.dims) for t in onnx.load(str(saved)).graph.initializer)
    assert a.torch_params == 11_689_512 and a.params == graph < a.torch_params
    assert "Total params: 11,689,512\nTrainable params: 11,689,512\nNon-trainable params: 0\n" in out
    assert f"Exported graph params: {graph:,} (an eval export folds BatchNorm" in out


def test_frozen_and_shared_parameters_as_torchinfo_counts(capsys):
    # a frozen layer, and a weight shared by two layers (counted once)
    first, last = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)
    last.weight = first.weight
    frozen = torch.nn.Linear(8, 4)
    for p in frozen.parameters():
        p.requires_grad_(False)
    m = torch.nn.Sequential(first, torch.nn.ReLU(), last, frozen)
    a = onnxcost.summary(m, input_size=(2, 8), depth=0)
    out = capsys.readouterr().out
    assert a.module_params == {"total": 64 + 8 + 8 + 36, "trainable": 64 + 8 + 8, "non_trainable": 36}
    assert "Total params: 116\nTrainable params: 80\nNon-trainable params: 36\n" in out
    assert "Exported graph params: " in out


def test_torchinfo_arguments_refused_in_one_line():
    m = torch.nn.Sequential(torch.nn.Linear(4, 3))
    for kw in ({"mode": "train"}, {"row_settings": ("var_names",)}, {"col_width": 30}, {"cache_forward_pass": True}):
        with pytest.raises(ValueError, match=f"torchinfo's {next(iter(kw))}= is not supported") as e:
            onnxcost.summary(m, input_size=(2, 4), **kw)
        assert "\n" not in str(e.value)
    a = onnxcost.summary(m, input_size=(2, 4), device="cpu", verbose=0)  # torchinfo's device= moves the module
    assert a.macs == 2 * 4 * 3


def test_batch_dim_and_verbose(capsys):
    tv = pytest.importorskip("torchvision")
    m = tv.models.resnet18()
    a = onnxcost.summary(m, input_size=(3, 64, 64), batch_dim=0, verbose=2)
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[:2] == ["Layer", "(type)"]  # verbose=2: the node table
    assert [n for n in a.nodes if n["op_type"] == "Conv"][0]["outputs"][0]["shape"] == [1, 64, 32, 32]
    assert a.macs == hook_macs(m, torch.rand(1, 3, 64, 64))
    onnxcost.summary(m, input_size=(1, 3, 32, 32), verbose=0)
    assert capsys.readouterr().out == ""


def bert_macs(batch, seq, hidden, inter, layers):
    """A BERT encoder by hand: Q, K, V and output projections (4 H^2 per
    token), the FFN (2 H I), QK^T and softmax x V (2 S H per token), the
    pooler's dense layer on the first token."""
    per_token = 4 * hidden * hidden + 2 * hidden * inter + 2 * seq * hidden
    return batch * (layers * seq * per_token + hidden * hidden)


def test_huggingface_bert(tmp_path, capsys):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=512, vocab_size=1000)
    torch.manual_seed(0)
    m = transformers.BertModel(cfg)
    ids = torch.randint(0, 1000, (2, 16))
    saved = tmp_path / "bert.onnx"
    a = onnxcost.summary(m, input_data={"input_ids": ids, "attention_mask": torch.ones_like(ids)}, save_onnx=saved)
    assert a.macs == bert_macs(2, 16, 128, 512, 2)
    assert a.totals == cli_json(saved)["totals"]
    assert a.complete
    assert "encoder/layer.0" in capsys.readouterr().out

    # dims left dynamic stay symbolic: the formula, evaluated anywhere, is the hand count
    b = onnxcost.summary(m, input_data={"input_ids": ids}, input_names=["input_ids"],
                         dynamic_axes={"input_ids": {0: "batch", 1: "seq"}}, verbose=0)
    formula = b.symbolic["totals"]["macs"]
    assert set(re.findall(r"[a-z_]+", formula)) == {"batch", "seq"}
    for batch, seq in ((1, 1), (3, 7), (8, 512)):
        assert eval(formula.replace("^", "**"), {}, {"batch": batch, "seq": seq}) == bert_macs(batch, seq, 128, 512, 2)
    c = onnxcost.summary(m, input_data={"input_ids": ids}, input_names=["input_ids"],
                         dynamic_axes={"input_ids": {0: "batch", 1: "seq"}}, dims={"seq": 64}, batch=4, verbose=0)
    assert c.macs == bert_macs(4, 64, 128, 512, 2)


def test_vit_attention_counted():
    """ViT-B/16: the patch embedding, per layer the QKV and output projections,
    QK^T and AV over 197 tokens, the MLP; the head on the class token.
    torchinfo's hooks see 0.17 G of these 17.56 G (docs/PYTHON.md)."""
    tv = pytest.importorskip("torchvision")
    n, d, mlp, layers = 197, 768, 3072, 12
    per_layer = n * d * 3 * d + 2 * n * n * d + n * d * d + 2 * n * d * mlp
    expect = 196 * d * (3 * 16 * 16) + layers * per_layer + d * 1000
    a = onnxcost.summary(tv.models.vit_b_16(), input_size=(1, 3, 224, 224), verbose=0)
    assert a.macs == expect


def test_col_names_and_arguments(capsys):
    m = torch.nn.Sequential(torch.nn.Linear(4, 3))
    a = onnxcost.summary(m, input_size=(2, 4), col_names=("input_size", "output_size", "num_params", "params_percent",
                                                          "mult_adds", "flops"), depth=0)
    assert a.macs == 2 * 4 * 3 and a.params == 15
    header, row = capsys.readouterr().out.splitlines()[1], None
    assert header.split()[2:] == ["Input", "Shape", "Output", "Shape", "Param", "#", "Param", "%", "MACs", "FLOPs"]
    onnxcost.summary(m, input_size=(2, 4), col_names=("num_params",), depth=0)
    lines = capsys.readouterr().out.splitlines()
    row = [l for l in lines if "Gemm" in l or "MatMul" in l][0]
    assert lines[1].split()[2:] == ["Param", "#"] and row.split()[-1] == "15"  # 4 x 3 weights + 3 biases
    with pytest.raises(ValueError, match="'kernel_size' is not a column onnxcost has"):
        onnxcost.summary(m, input_size=(2, 4), col_names=("kernel_size",))
    with pytest.raises(ValueError, match="module rows"):
        onnxcost.summary(m, input_size=(2, 4), col_names=("output_size",), depth=3)
    with pytest.raises(ValueError, match="input_size or input_data"):
        onnxcost.summary(m)
    with pytest.raises(ValueError, match="dtypes has 2 entries for 1 inputs"):
        onnxcost.summary(m, input_size=(2, 4), dtypes=[torch.float32, torch.float32])
    b = onnxcost.summary(m, input_data=[torch.rand(5, 4)], verbose=0, gpu="h100")
    assert b.macs == 5 * 4 * 3 and b.gpu["latency_s"] > 0


def test_integer_inputs_and_training_flag_restored():
    emb = torch.nn.Sequential(torch.nn.Embedding(10, 6), torch.nn.Linear(6, 2))
    emb.train()
    a = onnxcost.summary(emb, input_size=(3, 5), dtypes=[torch.long], verbose=0)
    assert a.macs == 3 * 5 * 6 * 2
    assert emb.training
