#!/bin/bash
# Ansor's collection rate, uniform draws only against half searched (docs/ansor.md): the first
# 4 tasks of ResNet-50, 32 valid states a task, into a scratch folder; prints the seconds each
# setting took (task extraction included) and its exit status.
#   benchmarks/speed/ansor_collect_rate.sh /tmp/rate
set -uo pipefail
out=${1:-/tmp/ansor-rate}
tvm_gnn="$(dirname "$0")/../../.venv-tvm019/bin/tvm-gnn"
mkdir -p "$out"
for uf in 1 0.5; do
    s=$(date +%s)
    "$tvm_gnn" collect --tuner ansor --network resnet50 --max-tasks 4 --trials-per-task 32 \
        --uniform-fraction "$uf" --out "$out/u$uf" -q --log-file "$out/u$uf.log" >"$out/u$uf.out" 2>&1
    rc=$?
    echo "uniform-fraction=$uf exit=$rc seconds=$(($(date +%s) - s)) records=$(cat "$out"/u"$uf"/ansor/*/measure_records/* | wc -l)"
done
