#!/usr/bin/env bash
# --columns on the MNIST net (fixtures/mnist/torchsummary_net.onnx), against
# figures worked out by hand: conv1 reads [1, 1, 28, 28] and writes
# [1, 10, 24, 24]; 10 x 25 weights + 10 biases = 260 params, 1.2 % of 21,840;
# 10 x 24 x 24 x 25 = 144,000 MACs, 30.0 % of 480,500; FLOPs 2 x 144,000 +
# 5,760 bias adds = 293,760; output bytes 5,760 x 4 = 23,040.
set -u
oc=$1 model=$2 fail=0
check() { if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: got [$2], want [$3]"; fail=1; fi; }
row=$("$oc" "$model" --batch 1 -q --columns input,output,params,params%,macs,macs%,flops,bytes | grep '/conv1/Conv')
check "every column, conv1" "$(echo "$row" | tr -s ' ')" \
    " /conv1/Conv (Conv) [1, 1, 28, 28] [1, 10, 24, 24] 260 1.2% 144,000 30.0% 293,760 23,040"
hdr=$("$oc" "$model" --batch 1 -q --columns flops,params | sed -n 2p | tr -s ' ')
check "order is the table's, not the list's" "$hdr" " Layer (type) Param # FLOPs"
check "the default is output,params,macs" "$("$oc" "$model" -q | md5sum)" \
    "$("$oc" "$model" -q --columns macs,output,params | md5sum)"
row=$("$oc" "$model" --batch 2 -q --depth 1 --columns params%,flops,bytes | grep ' conv1 ' | tr -s ' ')
check "module row, batch 2" "$row" " conv1 1 1.2% 587,520 46,080"
row=$("$oc" "$model" -q --columns macs%,bytes | grep '/conv1/Conv' | tr -s ' ')
check "symbolic: a share depends on the binding, bytes as a formula" "$row" " /conv1/Conv (Conv) - 23,040·batch"
for bad in "--columns nope" "--columns output --depth 1" "--columns macs --format json" "--columns ,"; do
    err=$("$oc" "$model" $bad 2>&1 >/dev/null); rc=$?
    check "refused: $bad" "$rc $(echo "$err" | wc -l)" "2 1"
done
exit $fail
