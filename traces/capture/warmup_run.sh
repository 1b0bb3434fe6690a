#!/usr/bin/env bash
# The warm-up experiment on a GPU machine (run from the repository root; needs CuPy, numpy, nvidia-smi):
#     OUT=/tmp/out bash traces/capture/warmup_run.sh [WORKDIR]     -> $OUT/cap.tgz (WORKDIR unpacked)
#     python traces/capture/warmup_check.py DIR                    # here: DIR = cap.tgz unpacked
# Five timing-only captures with capture.py, each in a fresh process, every one taking the input arrays of
# the bundled traces/h100/timing files (--timing-input-from), then fp8_trips.py's per-trip clocks again.
# cap.tgz is packed again after each step (a timeout keeps what ran). traces/h100/timing_warmup.json came
# from one run of this script (its last line then also tailed the logs), from a copy of the tree at a2bc9e8.
set -u
export PYTHONUNBUFFERED=1
W=${1:-/tmp/cap}; mkdir -p $W
smi() { echo "== $1 $(date -u +%T)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,pstate --format=csv,noheader; }
pack() { tar czf $OUT/cap.tgz -C $W .; }
{ smi start; nvidia-smi -q -d CLOCK,PERFORMANCE; } > $W/smi.txt 2>&1
C="traces/capture/capture.py --skip-instr --skip-ub --skip-programs --timing-input-from traces/h100/timing"
FP8='^sp_e(4m3|5m2)_k64_f32$'
# 1. the fp8 forms alone: cold (no warm-up), the whole run list as warm-up, one launch of each kernel
for v in "fp8cold none $FP8" "fp8runs runs $FP8" "fp8kern kernels $FP8"; do
  set -- $v; smi $1 >> $W/smi.txt
  timeout 150 python3 $C --out $W/$1 --timing-warmup $2 --only "$3" > $W/$1.log 2>&1; echo "$1 rc=$?"; pack
done
# 2. every timing trace in TIMING order (like the bundled capture), cold and warm
for v in "allcold none" "allruns runs"; do
  set -- $v; smi $1 >> $W/smi.txt
  timeout 200 python3 $C --out $W/$1 --timing-warmup $2 > $W/$1.log 2>&1; echo "$1 rc=$?"; pack
done
# 3. the per-trip clocks again (fp8_trips.py as committed: e5m2 first)
smi trips >> $W/smi.txt
mkdir -p $W/trips; timeout 100 python3 traces/capture/fp8_trips.py --device $W/trips > $W/trips.log 2>&1; echo "trips rc=$?"
smi end >> $W/smi.txt; pack; grep -v '^$' $W/smi.txt | head -80
