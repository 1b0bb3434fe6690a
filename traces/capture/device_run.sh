#!/usr/bin/env bash
# The command that records traces/h100 on a GPU machine (run from the repository root):
#     bash traces/capture/device_run.sh /tmp/h100
# Needs: CuPy + numpy, nvidia-smi, cuobjdump, and traces/capture/build/*.cubin made beforehand by
# `python traces/capture/gen_kernels.py --cubin` (the cubins are used only for the SASS dumps and for
# the check that the ptxas-built fp8 kernels give the same D as the driver-JIT-compiled PTX).
set -u
export PYTHONUNBUFFERED=1
OUTDIR=${1:-/tmp/h100}
B=traces/capture/build
mkdir -p "$OUTDIR/sass"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
python3 traces/capture/capture.py --out "$OUTDIR" --traps --cubin-check "$B"
rc=$?
for m in instr_f8_k64_f32 instr_f16_k16_f32; do
    cuobjdump -sass "$B/$m.cubin" > "$OUTDIR/sass/$m.sass"
done
for k in mmasp_f8_k64_f32_e4m3e4m3_sel0_ord mmasp_f8_k64_f32_e5m2e5m2_sel0_ord; do
    cuobjdump -sass -fun "$k" "$B/instr_f8_k64_f32.cubin" > "$OUTDIR/sass/$k.sass"
done
cuobjdump -sass -fun sp_e4m3_k64_f32_ilp1 "$B/timing_sp_e4m3_k64_f32.cubin" > "$OUTDIR/sass/timing_sp_e4m3_k64_f32_ilp1.sass"
cuobjdump -sass -fun sp_f16_k16_f32_ilp1 "$B/timing_sp_f16_k16_f32.cubin" > "$OUTDIR/sass/timing_sp_f16_k16_f32_ilp1.sass"
cuobjdump --version > "$OUTDIR/sass/cuobjdump-version.txt"
wc -l "$OUTDIR"/sass/*
python3 traces/capture/verify.py "$OUTDIR"
exit $rc
