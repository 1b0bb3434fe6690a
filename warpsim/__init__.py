"""warpsim — a cycle-level simulator of one GPU warp (and a CTA) running sparse tensor-core PTX."""

from warpsim.tensorcore import mma_sp  # noqa: E402,F401

from warpsim.module import RawModule  # noqa: E402

__all__ = ["RawModule", "mma_sp"]
