#!/usr/bin/env bash
# timm_tables.sh — every table of docs/results/timm/ from the exported
# models (bench/timm_published.py export), in four steps:
#
#   bench/timm_tables.sh joins  MODELS [ONNXCOST]   one kernel per node, torch-eager,
#                                                  autocast at the default factors,
#                                                  torch-compile at the default factors
#   bench/timm_tables.sh fits   MODELS [ONNXCOST]   the kernel classes' factors from every
#                                                  tenth model of each fitted file, written
#                                                  into views/perf/fits.def: rebuild after
#   bench/timm_tables.sh backward MODELS [ONNXCOST] the training step's backward ratios per
#                                                  kernel class from every tenth model of each
#                                                  training file (the forward under the built-in
#                                                  fits: run it after fits and a rebuild), written
#                                                  into views/perf/fits.def: rebuild after
#   bench/timm_tables.sh fitted MODELS [ONNXCOST]   the rows under the built-in fits, the
#                                                  training rows, the static figures
#
# The PyTorch 2.9.1 files' rows are priced from the reparameterized files
# that `timm_published.py reparam` exports (run it after an export).
#
# A model whose timm module writes its attention out (the manifest's
# attention column, "written") is priced with --unfused-attention: eager
# PyTorch runs its MatMuls and Softmax as the file has them, and so, on
# timm's rows, does torch.compile mostly (its pattern matcher rewrites only
# some such attention into scaled_dot_product_attention: with the option
# 73.7 % of the PyTorch 2.9.1 -dynamo rows within 15 % in a ten-fold check
# of the fit, without it 72.4 %).
set -euo pipefail
step=${1:?joins, fits, backward or fitted}
models=${2:?the folder of the exported models}
bin=${3:-build/onnxcost}
out=${OUT:-docs/results/timm}
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
h="$py $here/timm_published.py"
written=--written=--unfused-attention

gpu_of() { case $1 in *3090*) echo rtx-3090 ;; *) echo rtx-4090 ;; esac; }
# the PyTorch 2.9.1 rows were measured reparameterized (benchmark.py
# --reparam: their parameter counts are the fused models'); such a model
# is priced from its reparameterized file (timm_published.py reparam)
reparam_of() { case $1 in *pt291*) echo --reparam ;; *) echo "" ;; esac; }
layout_of() { case $1 in *nhwc*) echo --channels-last ;; *) echo "" ;; esac; }

join() { # file tag dtype extra [the options for written-out attention [join's own options...]]
    $h join --csv "$here/timm/$1.csv" --models "$models" --onnxcost "$bin" --gpu "$(gpu_of "$1")" \
        --dtype "$3" --extra "$4" "${5:-$written}" $(reparam_of "$1") "${@:6}" --out "$out/$1.$2.tsv"
}

infer=(benchmark-infer-amp-nchw-pt240-cu124-rtx4090 benchmark-infer-amp-nchw-pt240-cu124-rtx3090
       benchmark-infer-amp-nhwc-pt240-cu124-rtx4090 benchmark-infer-amp-nhwc-pt240-cu124-rtx3090
       benchmark-infer-amp-nchw-pt291-cu128-4090 benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo
       benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo)

case $step in
joins)
    cp "$models/manifest.tsv" "$out/exports.tsv" # every export tried: ok, or failed with why
    for f in "${infer[@]}"; do
        cl=$(layout_of "$f")
        join "$f" nodes fp16 ""
        join "$f" torch-eager fp16 "--runtime torch-eager $cl"
        join "$f" autocast "" "--runtime torch-eager $cl --autocast fp16 --efficiency 0.6"
        case $f in *dynamo) join "$f" compile "" "--runtime torch-compile --autocast fp16 --efficiency 0.6" ;; esac
    done
    ;;
fits)
    p=benchmark-infer-amp
    fit() { # name rows [--additive] applied...
        local name=$1 rows=$2 how=()
        shift 2
        if [ "${1:-}" = --additive ]; then how=(--additive); shift; fi
        $h fit "$out/$rows" "${how[@]}" --apply "${@/#/$out/}" --out "$out/fit-$name.json" > /dev/null
    }
    # eager: additive (a contraction's compute and memory terms added, each
    # over its factor); torch.compile: the roofline's max (docs/MODEL.md,
    # "Fitted kernel classes", has the figures of both)
    a=--additive
    fit rtx4090 $p-nchw-pt240-cu124-rtx4090.autocast.tsv $a $p-nchw-pt240-cu124-rtx3090.autocast.tsv \
        $p-nchw-pt291-cu128-4090.autocast.tsv
    fit rtx3090 $p-nchw-pt240-cu124-rtx3090.autocast.tsv $a $p-nchw-pt240-cu124-rtx4090.autocast.tsv
    fit rtx4090-nhwc $p-nhwc-pt240-cu124-rtx4090.autocast.tsv $a $p-nhwc-pt240-cu124-rtx3090.autocast.tsv
    fit rtx3090-nhwc $p-nhwc-pt240-cu124-rtx3090.autocast.tsv $a $p-nhwc-pt240-cu124-rtx4090.autocast.tsv
    fit rtx4090-compile $p-nchw-pt291-cu128-4090-dynamo.compile.tsv $p-nchw-pt240-cu124-rtx4090-dynamo.compile.tsv
    $h fitsdef "$out/fit-rtx4090.json" --gpu rtx-4090
    $h fitsdef "$out/fit-rtx3090.json" --gpu rtx-3090
    $h fitsdef "$out/fit-rtx4090-nhwc.json" --gpu rtx-4090 --channels-last
    $h fitsdef "$out/fit-rtx3090-nhwc.json" --gpu rtx-3090 --channels-last
    $h fitsdef "$out/fit-rtx4090-compile.json" --gpu rtx-4090 --runtime OC_RUNTIME_TORCH_COMPILE
    ;;
backward)
    t=benchmark-train-amp
    train="--runtime torch-eager --autocast fp16 --optimizer momentum --folded-bn --unfused-attention"
    join $t-nchw-pt112-cu113-rtx3090 backward "" "$train" "" --backward-terms
    join $t-nhwc-pt112-cu113-rtx3090 backward "" "$train --channels-last" "" --backward-terms
    $h fit "$out/$t-nchw-pt112-cu113-rtx3090.backward.tsv" --backward \
        --apply "$out/$t-nhwc-pt112-cu113-rtx3090.backward.tsv" --out "$out/fit-rtx3090-train.json" > /dev/null
    $h fit "$out/$t-nhwc-pt112-cu113-rtx3090.backward.tsv" --backward \
        --apply "$out/$t-nchw-pt112-cu113-rtx3090.backward.tsv" --out "$out/fit-rtx3090-nhwc-train.json" > /dev/null
    $h fitsdef "$out/fit-rtx3090-train.json" --gpu rtx-3090 --backward
    $h fitsdef "$out/fit-rtx3090-nhwc-train.json" --gpu rtx-3090 --channels-last --backward
    ;;
fitted)
    for f in "${infer[@]}"; do
        join "$f" fitted "" "--runtime torch-eager $(layout_of "$f") --autocast fp16"
        case $f in *dynamo) join "$f" compile-fitted "" "--runtime torch-compile --autocast fp16" ;; esac
    done
    for l in nchw nhwc; do
        join benchmark-train-amp-$l-pt112-cu113-rtx3090 fitted "" \
            "--runtime torch-eager --autocast fp16 --optimizer momentum --folded-bn --unfused-attention $(layout_of $l)"
    done
    $h static --csv "$here/timm/benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv" --models "$models" \
        --onnxcost "$bin" --out "$out/static.tsv"
    ;;
*)
    echo "timm_tables.sh: no step '$step' (joins, fits, backward or fitted)" >&2
    exit 2
    ;;
esac
