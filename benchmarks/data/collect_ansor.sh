#!/bin/bash
# The Ansor dataset (issue 106), as it is collected: the held-out networks first (the test set),
# then training networks, 40 valid states a task, uniform draws only (docs/ansor.md, "The Ansor
# dataset": the search half measured 2.4 times slower a record, and aborted once inside TVM).
# Resumable: run it again after a stop; `tvm-gnn pack` then copies the logs into data/ansor/.
#   nohup benchmarks/data/collect_ansor.sh > collect_ansor.out 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/../.."
NETS="resnet18 mobilenet_v2 inception_v3 resnet50 squeezenet mnasnet efficientnet_b0 googlenet
densenet121 shufflenet_v2 vgg16 alexnet regnet_y_800mf mobilenet_v3_large resnext50 convnext_tiny
regnet_x_400mf mobilenet_v3_small efficientnet_b3 wide_resnet50_2 mnasnet0_5 shufflenet_v2_x2_0
regnet_y_400mf squeezenet1_0 densenet169 efficientnet_v2_s resnet50_b4 dilated_grouped_cnn
unet_small tcn_conv1d"
# shellcheck disable=SC2086
exec .venv-tvm019/bin/tvm-gnn collect --tuner ansor --network $NETS --out data_raw \
    --hardware "${HARDWARE:-llvm-amd-epyc-znver3-2c}" --trials-per-task 40 --uniform-fraction 1 \
    --seed 0 -q
