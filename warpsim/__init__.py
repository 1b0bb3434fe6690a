"""warpsim — a cycle-level simulator of one GPU warp (and a CTA) running sparse tensor-core PTX."""

from warpsim.tensorcore import mma_sp  # noqa: E402,F401
