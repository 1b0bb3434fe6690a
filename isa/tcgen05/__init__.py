"""tcgen05 (Blackwell, sm_100a) core: descriptors, TMEM layouts and the MMA functional model.

PTX ISA 9.2 section 9.7.16 (renumbered 9.7.18 in 9.4). Modules:

* :mod:`isa.tcgen05.idesc` — the 32-bit instruction descriptor (``idesc``).
* :mod:`isa.tcgen05.smem_desc` — the 64-bit shared-memory matrix descriptor, canonical layouts, swizzles.
* :mod:`isa.tcgen05.tmem_layout` — data-path layouts, sparse-metadata and scale-factor placement,
  ``tcgen05.ld/st`` register maps.
* :mod:`isa.tcgen05.mma` — ``tcgen05.mma{.sp}`` over numpy.

The TMEM state itself (allocation, access rules) lives in :mod:`warpsim.tmem`.
"""
from isa.tcgen05.idesc import DescriptorError, InstrDescriptor, KINDS  # noqa: F401
