// Hand-written program kernel (not generated): per-lane divergent control flow.
//
// Every thread runs a Collatz iteration on its own input (a data-dependent loop, at most 64 trips,
// odd/even branch inside), then takes one of three lane-dependent branches to write a result:
//   lane % 3 == 0: fout = steps * 0.5f + (float)x          (float path)
//   lane % 3 == 1: fout = bit pattern of (x * 2654435761u) (integer path)
//   lane % 3 == 2: only if steps is odd: fout = -1.0f, else fout is left untouched
// Outputs: steps[tid], xout[tid] (value left when the loop stopped), fout[tid].
extern "C" __global__ void divergent_collatz(const unsigned *in, unsigned *steps, unsigned *xout, float *fout)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31u;
    unsigned x = in[tid];
    unsigned n = 0;
    while (x != 1u && n < 64u) {
        if (x & 1u)
            x = 3u * x + 1u;
        else
            x >>= 1;
        ++n;
    }
    steps[tid] = n;
    xout[tid] = x;
    if (lane % 3u == 0u) {
        fout[tid] = (float)n * 0.5f + (float)x;
    } else if (lane % 3u == 1u) {
        fout[tid] = __uint_as_float(x * 2654435761u);
    } else if (n & 1u) {
        fout[tid] = -1.0f;
    }
}
