"""isa — the mini PTX interpreter: parser, instruction tables, layouts, numerics, semantics.

It knows nothing of simpy or of the machine; ``warpsim`` builds the machine on top of it.
"""
