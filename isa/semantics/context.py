"""The contract between instruction semantics (``isa``) and the machine (``warpsim``).

A semantics body sees one warp through an ``ExecContext``: 32 lanes, an active mask, typed
register reads and writes, memory, special registers and control flow. Values are numpy arrays
of length 32 (one element per lane), so a body never loops over lanes.

PTX types used as ``ptype``: ``b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16
bf16x2 f32 f64 pred``. ``read`` returns the natural numpy dtype (uint32 for b32/u32, int32 for
s32, float32 for f32, bool for pred, uint16 *bits* for f16/bf16 — float conversions of 16-bit
formats go through :mod:`isa.formats`). Immediates broadcast to 32 lanes.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np


class ExecContext(Protocol):
    arch: str  # "sm_90a" ... from the module's .target (or the user's override)
    ub_policy: str  # "error" (default) or "hardware": reproduce what the H100 does
    warp_id: int
    active: np.ndarray  # (32,) bool: lanes executing this instruction (guard already applied)

    # ----- registers
    def read(self, op, ptype: str) -> np.ndarray: ...
    def write(self, op, values, ptype: str) -> None: ...  # only active lanes are written
    def read_vec(self, op, ptype: str) -> np.ndarray: ...  # Vec operand -> (32, n)
    def write_vec(self, op, values: np.ndarray, ptype: str) -> None: ...  # (32, n)

    # ----- memory: addr is (32,) uint64 byte addresses in ``space``; returns/stores (32,) or (32, n)
    # address(op, space): ``space`` is the instruction's state space ("global", "shared", ... or
    # "generic"); a variable/parameter base resolves to its address in that space (its generic
    # address when space is "generic"). Returns (space, (32,) uint64 addresses).
    def address(self, op, space: str | None = None) -> tuple[str, np.ndarray]: ...
    def load(self, space: str, addr: np.ndarray, ptype: str, n: int = 1) -> np.ndarray: ...
    def store(self, space: str, addr: np.ndarray, values: np.ndarray, ptype: str, n: int = 1) -> None: ...

    # ----- special registers and control
    def special(self, name: str) -> np.ndarray: ...  # %tid.x, %laneid, %clock64 ...
    def branch(self, target: str, taken: np.ndarray) -> None: ...  # lanes in ``taken`` jump
    def exit(self) -> None: ...  # active lanes finish
    def barrier(self, bar_id: int, count: int | None, wait: bool = True) -> None: ...  # bar.sync; wait=False: bar.arrive
    def where(self) -> str: ...  # "file:line:col (instruction)" for error messages

    # ----- the warp's tensor core (implemented by warpsim.tensorcore.mma_sp)
    def mma_sp(self, form, variant: str, selector: int, a: np.ndarray, b: np.ndarray, c: np.ndarray,
               e: np.ndarray, **scales) -> np.ndarray: ...  # (32, nA) ... (32,) uint32 -> d (32, nD)
    # the same from the registers named by ``ins`` into its D registers, when the machine can (True); False:
    # nothing done, the body reads the operands and calls mma_sp
    def mma_sp_in_place(self, ins, form, variant: str, selector: int) -> bool: ...

    # ----- added for the ordinary instructions (warpsim.warp.Warp implements them)
    def cvta(self, addr: np.ndarray, space: str, to_generic: bool) -> np.ndarray: ...  # cvta / cvta.to
    def symbol(self, name: str) -> tuple[str, int] | None: ...  # (space, address) of a variable or param
    def fence(self, kind: str) -> None: ...  # membar/fence: executed and counted, no functional effect
    def sleep(self, ns: np.ndarray) -> None: ...  # nanosleep
    def spin_wait(self) -> None: ...  # a poll that failed (mbarrier.try_wait false): a scheduling hint
    def undefined(self, rule: str, lanes=None, value=None, detail: str = ""): ...  # raise UndefinedBehavior

    # ----- Blackwell tcgen05 (sm_100a): this warp's port to its CTA's Tensor Memory and shared memory, the CTA
    # pair of its cluster and the cluster's asynchronous tensor unit (warpsim.tcgen05_async.Port: tmem, smem(),
    # ctas(cta_group), cluster, unit with advance/run_async/commit/ld_st/wait/fence/check/mbar_*)
    def tcgen05(self): ...
