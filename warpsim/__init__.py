"""warpsim — a cycle-level simulator of one GPU warp (and a CTA) running sparse tensor-core PTX."""
