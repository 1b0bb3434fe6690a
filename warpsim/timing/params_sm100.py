"""sm_100 / sm_120 (Blackwell) timing table — LITERATURE-CALIBRATED, not checked against any trace here.

Sources: shared/reference/ptx-tcgen05.md §5. B200 peaks (§5.1): FP16 4096 MAC/SM/clk dense, "2x Hopper"
per SM for every tcgen05 kind; SemiAnalysis B200 single-instruction timing (§5.2): tcgen05.mma TS M=128
initiation interval N/2 and latency N/2 + 104 (SS: N/2 + 136); `.sp` assumed at the dense II (§5.3, an
inference, unmeasured). Warp-level mma/mma.sp on these parts is taken as on sm_90 (no measurement
found); TMEM miss latency ~420 cycles vs ~1000 for Hopper global (§3, third-party review).
The tcgen05 ops take one issue slot each (classes `async`/`tmem`); when a queued tcgen05.mma/cp/shift
*completes* (and so when its tcgen05.commit arrives on the mbarrier) is modelled by the tensor unit with the
B200 figures of warpsim/timing/params_tcgen05.py. The `async` class latency is therefore what an mbarrier
poll (try_wait/test_wait, also class async) takes to give its predicate, as on sm_90 (30, assumed), and
~30 for tcgen05.ld/st (class tmem).
"""
from warpsim.timing.params_sm90 import TABLE as _SM90

TABLE = {
    "arch": "sm_100",
    "calibration": "literature (ptx-tcgen05.md §5: NVIDIA peaks, SemiAnalysis B200 timing); not trace-checked",
    "clock_mhz": 1860.0,
    "issue": dict(_SM90["issue"], sms=148),
    "units": dict(_SM90["units"]),
    "classes": dict(_SM90["classes"], **{"async": {"unit": "mio", "latency": 30.0},
                                          "tmem": {"unit": "mio", "latency": 30.0}}),
    "tensor": {k: dict(v) for k, v in _SM90["tensor"].items()},
    "emulated": {},
}
