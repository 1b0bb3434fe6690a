#!/bin/sh
# Re-emit the nvcc PTX fixtures from src/*.cu (handwritten.ptx is written by hand, not here).
# Usage: tests/ptx/regen.sh            (needs nvcc 13.x on PATH, or NVCC=/path/to/nvcc)
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
SM90="-gencode=arch=compute_90a,code=sm_90a"
SM100="-gencode=arch=compute_100a,code=sm_100a"
$NVCC -ptx $SM90 src/basic.cu -o basic.ptx
$NVCC -ptx $SM90 src/mma_sp.cu -o mma_sp.ptx
$NVCC -ptx $SM90 src/misc.cu -o misc.ptx
$NVCC -ptx $SM90 -rdc=true -lineinfo src/linkage.cu -o linkage.ptx
$NVCC -ptx $SM100 src/tcgen05.cu -o tcgen05.ptx
$NVCC -ptx $SM90 -G src/debug.cu -o debug.ptx
