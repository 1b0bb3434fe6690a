"""tcgen05 (Blackwell B200) asynchronous tensor-core timing — LITERATURE-CALIBRATED, not checked against any
trace here (there is no Blackwell GPU on this machine).

Source: shared/reference/ptx-tcgen05.md §5. SemiAnalysis ``microbench-blackwell`` (B200, dense only, §5.2):
single-MMA latency (issue -> commit -> mbarrier observed) is linear in N with the slopes/intercepts below
(bf16; i8 about 2 cycles less, block-scaled about 2 more), and back-to-back MMAs on one accumulator stream
issue every II cycles: N/2 per TMEM lane's worth of D columns (N/4 for the 2x2 layout B), and in SS mode at
least the shared-memory operand fetch at 128 B/clk (A = M_cta x 32 B, B = N_cta x 32 B per instruction;
their 2-SM points need ~3 (M 256) / ~1 (M 128) cycles more). Sparse (``.sp``, §5.3, unmeasured): the same
II and latency as the dense instruction of the same M, N, cta_group (the peak tables imply it), with the
SS fetch of B doubled (K doubles) — an inference. tcgen05.cp / shift: no public figures; assumed.
"""

TABLE = {
    "calibration": "literature (ptx-tcgen05.md §5.2 SemiAnalysis B200 dense timing; §5.3 .sp inferred; "
                   "cp/shift assumed); not trace-checked",
    # (A source, cta_group, M) -> (slope, intercept): latency = slope * N + intercept cycles
    "mma_latency": {
        ("TS", 1, 64): (0.5, 104.0), ("TS", 1, 128): (0.5, 104.0),
        ("SS", 1, 64): (0.5, 120.0), ("SS", 1, 128): (0.5, 136.0),
        ("TS", 2, 128): (0.25, 146.0), ("SS", 2, 128): (0.25, 165.0),
        ("TS", 2, 256): (0.5, 138.0), ("SS", 2, 256): (0.5, 170.0),
    },
    "latency_extra": {"i8": -2.0, "mxf8f6f4": 2.0, "mxf4": 2.0, "mxf4nvf4": 2.0},
    # II = D columns each TMEM lane receives / 2 (layout B spreads N over two lane halves)
    "ii_per_lane_column": 0.5,
    "smem_bytes_per_clk": 128.0,
    "smem_k_bytes_per_row": 32,  # one instruction's K extent of A and B in shared memory, bytes per row
    "ss_extra_2cta": {128: 1.0, 256: 3.0},
    # tcgen05.cp: rows x bytes at the shared-memory rate after a fixed start; shift: one 31 x 32 B move (assumed)
    "cp_latency": 64.0,
    "shift": (32.0, 8.0),
}
