"""The recorded H100 timing configurations the sm_90 replay misses by more than 5 %, and why (data, written once).

``warpsim replay`` names the cause beside each of them, and tests/test_timing.py holds every one to its
bound: a miss that grows past its bound, or a configuration outside 5 % that is not here, fails. The
evidence is in traces/h100/TIMING_FINDINGS.md (the section of each cause). All are loops the H100 runs in
software (ptxas's SASS, ``warpsim.timing.sass_sim``); every configuration of a native form is within 5 %.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

FINDINGS = "traces/h100/TIMING_FINDINGS.md"


@dataclass(frozen=True)
class Cause:
    why: str      #: one line, what the measurements show
    section: str  #: the anchor of its section in :data:`FINDINGS`


@dataclass(frozen=True)
class Miss:
    trace: str          #: the timing trace (traces/h100/timing/<trace>.npz)
    ilp: int
    warps: tuple        #: the CTA's warps of the configurations
    bound: float        #: the |error| each reaches at most (tested)
    cause: str          #: a key of :data:`CAUSES`
    reps: int = 32


CAUSES = {
    "l1shape": Cause("the replay's L1 leaves sparse fp8 ILP 4 with 4-8 warps short of the H100 and with 9-13 "
                     "long, and these runs move by several % with any change of a few cycles (an 11-cycle "
                     "branch cost a trip of 17,000 moved them by 3-6 points)",
                     "sparse-fp8-ilp-4-with-several-warps-where-the-replay-lands"),
    "fp8pairs": Cause("two warps of the sparse fp8 ILP 1 loop on a sub-partition run 1.30x or 1.40x one warp, "
                      "nothing between, in shares that change from launch to launch (the 7-warp e4m3 launch "
                      "recorded: 2 of 12 pairs slow); the replay's pairs sit between the modes",
                      "sparse-fp8-ilp-1-two-warps-on-a-sub-partition-two-modes"),
    "icache": Cause("two warps on a sub-partition run in one of two modes, set by the code the launch before "
                    "left in the SM's instruction caches and by which warp starts its loop first (loop_delay.json); "
                    "the replay sits near the slow one",
                    "s4-two-warps-on-a-sub-partition-two-modes"),
}

MISSES = (
    Miss("sp_e4m3_k64_f32", 4, (6, 10), 0.06, "l1shape"),
    Miss("sp_e4m3_k64_f32", 1, (7,), 0.06, "fp8pairs"),
    Miss("sp_s4_k64", 1, (8,), 0.08, "icache"),
)


def configurations() -> dict:
    """``{(trace, ilp, warps, reps): Miss}`` of every known miss."""
    return {(m.trace, m.ilp, w, m.reps): m for m in MISSES for w in m.warps}


def find(trace: str, ilp: int, warps: int, reps: int) -> Miss | None:
    """The known miss of a configuration of the timing trace named ``trace`` (``timing/<name>`` or ``<name>``)."""
    return configurations().get((trace.rsplit("/", 1)[-1], ilp, warps, reps))


def find_group(name: str) -> Miss | None:
    """:func:`find` for a replay group's name (``timing/sp_s4_k64 ilp1 warps8 reps32``)."""
    m = re.fullmatch(r"(\S+) ilp(\d+) warps(\d+) reps(\d+)", name)
    return m and find(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))


def note(miss: Miss) -> str:
    """What ``warpsim replay`` prints beside a known miss."""
    cause = CAUSES[miss.cause]
    return f"known: {cause.why} ({FINDINGS}#{cause.section})"
