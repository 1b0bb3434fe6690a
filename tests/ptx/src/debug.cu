// Built with -G: .file/.loc everywhere and DWARF .section blocks, which the parser skips.
__global__ void dbg(int* o) {
    int i = threadIdx.x;
    if (i < 4) o[i] = i * 3;
}
