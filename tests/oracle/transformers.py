#!/usr/bin/env python3
"""GPT-2 small and DistilBERT-base written in plain PyTorch, exported to ONNX with
dynamic `batch` and `sequence` axes (random weights, nothing downloaded).

The architectures follow HuggingFace's GPT2LMHeadModel (tied LM head, learned
positions, pre-LayerNorm blocks, tanh GELU, causal mask from a lower-triangular
buffer) and DistilBertModel (post-LayerNorm, erf GELU, padding mask).

usage: python tests/oracle/transformers.py {gpt2,distilbert} OUT.onnx [--layers N] [--opset N]
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT2Attention(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.heads, self.d = heads, d
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool)).view(1, 1, n_ctx, n_ctx))
        # the masked score as a buffer, on the model's device: a CPU tensor
        # made in forward is a host-to-device copy, which a CUDA graph
        # capture refuses (tests/gpu/crosscheck.py times GPT-2 in one)
        self.register_buffer("masked_bias", torch.tensor(torch.finfo(torch.float32).min), persistent=False)

    def forward(self, x):
        b, t, d = x.size()
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        mask = self.bias[:, :, :t, :t]
        att = torch.where(mask, att, self.masked_bias.to(att.dtype))
        att = F.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(b, t, d)
        return self.c_proj(y)


class GPT2Block(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = GPT2Attention(d, heads, n_ctx)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.ModuleDict({"c_fc": nn.Linear(d, 4 * d), "c_proj": nn.Linear(4 * d, d)})

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = F.gelu(self.mlp["c_fc"](self.ln_2(x)), approximate="tanh")
        return x + self.mlp["c_proj"](h)


class GPT2(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, vocab=50257, n_ctx=1024):
        super().__init__()
        self.transformer = nn.ModuleDict({
            "wte": nn.Embedding(vocab, d), "wpe": nn.Embedding(n_ctx, d),
            "h": nn.ModuleList([GPT2Block(d, heads, n_ctx) for _ in range(layers)]),
            "ln_f": nn.LayerNorm(d)})
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.transformer["wte"].weight  # tied

    def forward(self, input_ids):
        t = input_ids.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        x = self.transformer["wte"](input_ids) + self.transformer["wpe"](pos)
        for block in self.transformer["h"]:
            x = block(x)
        return self.lm_head(self.transformer["ln_f"](x))


class DistilBertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.q_lin, self.k_lin, self.v_lin, self.out_lin = (nn.Linear(d, d) for _ in range(4))
        self.sa_layer_norm = nn.LayerNorm(d, eps=1e-12)
        self.lin1, self.lin2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.output_layer_norm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, mask):
        b, t, d = x.size()
        dh = d // self.heads

        def shape(y):
            return y.view(b, -1, self.heads, dh).transpose(1, 2)

        q = shape(self.q_lin(x)) / math.sqrt(dh)
        k, v = shape(self.k_lin(x)), shape(self.v_lin(x))
        scores = torch.matmul(q, k.transpose(2, 3))
        m = (mask == 0).view(b, 1, 1, t).expand_as(scores)
        scores = scores.masked_fill(m, torch.tensor(torch.finfo(scores.dtype).min))
        ctx = torch.matmul(F.softmax(scores, dim=-1), v).transpose(1, 2).contiguous().view(b, -1, d)
        x = self.sa_layer_norm(self.out_lin(ctx) + x)
        return self.output_layer_norm(self.lin2(F.gelu(self.lin1(x))) + x)


class DistilBert(nn.Module):
    def __init__(self, layers=6, d=768, heads=12, ff=3072, vocab=30522, n_pos=512):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(n_pos, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)
        self.layer = nn.ModuleList([DistilBertLayer(d, heads, ff) for _ in range(layers)])

    def forward(self, input_ids, attention_mask):
        t = input_ids.size(1)
        pos = torch.arange(t, dtype=torch.long, device=input_ids.device).unsqueeze(0).expand_as(input_ids)
        x = self.LayerNorm(self.word_embeddings(input_ids) + self.position_embeddings(pos))
        for layer in self.layer:
            x = layer(x, attention_mask)
        return x


def onnx_export(model, args, path, **kw):
    """torch.onnx.export with the TorchScript exporter, which torch >= 2.9 no
    longer uses by default (the GPU machines have 2.11)."""
    with torch.no_grad():
        try:
            torch.onnx.export(model, args, path, dynamo=False, **kw)
        except TypeError:  # a torch before the dynamo argument (Debian's 1.13)
            torch.onnx.export(model, args, path, **kw)


def export(name, out, layers=None, opset=13):
    torch.manual_seed(0)
    ids = torch.randint(0, 1000, (2, 8))
    axes = {0: "batch", 1: "sequence"}
    if name == "gpt2":
        model = GPT2(**({"layers": layers} if layers else {})).eval()
        args, names, dyn = (ids,), ["input_ids"], {"input_ids": axes, "logits": axes}
        outs = ["logits"]
    else:
        model = DistilBert(**({"layers": layers} if layers else {})).eval()
        args, names = (ids, torch.ones_like(ids)), ["input_ids", "attention_mask"]
        dyn = {"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes}
        outs = ["last_hidden_state"]
    onnx_export(model, args, out, input_names=names, output_names=outs, dynamic_axes=dyn, opset_version=opset)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=["gpt2", "distilbert"])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int)
    ap.add_argument("--opset", type=int, default=13)
    a = ap.parse_args()
    export(a.name, a.out, a.layers, a.opset)
