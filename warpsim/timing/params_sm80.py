"""sm_80 (A100) timing table — LITERATURE-CALIBRATED, not checked against any trace in this repository.

Sources: shared/reference/anchors.md §3. Peak rates (NVIDIA A100 whitepaper, per SM per clock):
FP16/BF16 1024 dense / 2048 sparse FMA, TF32 512 / 1024, INT8 2048 / 4096 -> per sub-partition
256 FP16 FMA/clk, so dense m16n8k16 (2048 FMA) needs 8 cycles (ii 8) and sparse m16n8k16 (1024
stored FMA) 4 cycles. Latencies: Sun et al. (TPDS 2023, arXiv 2206.02874) report mma.sync m16n8k16
dependent latency of about 32 cycles on A100 and Accel-Sim's Ampere default is 32/32 (§3, last
bullet); we use 32 for dense k16 and 24 for sparse. Dependent add 4 cycles (Abdelkhalik HPEC'22).
The memory latencies are the usual A100 microbenchmark figures (L2 hit ~ 200-260, shared ~ 23-30).
"""
from warpsim.timing.params_sm90 import TABLE as _SM90

TABLE = {
    "arch": "sm_80",
    "calibration": "literature (anchors.md §3): A100 peak rates, Sun et al. TPDS'23, Accel-Sim 32/32",
    "clock_mhz": 1410.0,
    "issue": dict(_SM90["issue"], sms=108),
    "units": dict(_SM90["units"]),
    "classes": dict(_SM90["classes"], mem_global={"unit": "mio", "latency": 260.0},
                    mem_shared={"unit": "mio", "latency": 25.0}),
    "tensor": {
        "sparse_k16": {"latency": 24.0, "ii": 4.0, "forms": _SM90["tensor"]["sparse_k16"]["forms"]},
        "sparse_k32": {"latency": 32.0, "ii": 8.0, "forms": _SM90["tensor"]["sparse_k32"]["forms"]},
        "dense": {"latency": 32.0, "ii": 8.0, "forms": _SM90["tensor"]["dense"]["forms"]},
        "sparse_default": {"latency": 32.0, "ii": 8.0, "forms": []},
        "dense_default": {"latency": 32.0, "ii": 8.0, "forms": []},
    },
    "emulated": {},
}
