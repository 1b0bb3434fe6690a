"""State spaces: global regions at fake device addresses, shared per CTA, local per thread,
const and param banks, and the generic address space that maps onto them.

Every access is checked: each active lane's ``[addr, addr+size)`` must lie inside one
allocation and ``addr`` must be a multiple of the access size (a whole vector for ``.v2/.v4``).
A failed check raises :class:`Fault` (lane, address, reason); the warp turns it into a
:class:`isa.errors.MemoryFault` naming the instruction and the thread.

Generic addresses: shared, local, param and const windows sit at ``WINDOW[space]`` (one TiB
apart) and global allocations start at ``GLOBAL_BASE``; ``cvta`` adds or removes a window base.
"""
from __future__ import annotations

import bisect

import numpy as np

WINDOW = {"shared": 1 << 40, "local": 2 << 40, "param": 3 << 40, "const": 4 << 40}
WINDOW_SIZE = 1 << 40
GLOBAL_BASE = 0x7F00_0000_0000
_ALIGN = 256
_U64 = np.uint64


class Fault(Exception):
    def __init__(self, lane: int, addr: int, reason: str):
        self.lane, self.addr, self.reason = lane, addr, reason
        super().__init__(f"lane {lane}: {reason} at {addr:#x}")


def _check_align(addr, active, size):
    bad = active & ((addr & _U64(size - 1)) != 0)
    if bad.any():
        lane = int(np.argmax(bad))
        raise Fault(lane, int(addr[lane]), f"misaligned {size}-byte access")


class Flat:
    """One byte array with addresses from 0: a CTA's shared memory, the const bank, the param buffer."""

    def __init__(self, nbytes: int, name: str, data: bytes | None = None):
        self.name = name
        self.size = nbytes
        self.buf = np.zeros((nbytes + 15) // 16 * 16, np.uint8)
        if data:
            self.buf[: len(data)] = np.frombuffer(data, np.uint8)
        self._views = {}

    def _view(self, dt):
        v = self._views.get(dt)
        if v is None:
            v = self._views[dt] = self.buf.view(dt)
        return v

    def _index(self, addr, active, size, n):
        _check_align(addr, active, size * n)
        out = active & (addr + _U64(size * n) > _U64(self.size))
        if out.any():
            lane = int(np.argmax(out))
            raise Fault(lane, int(addr[lane]), f"{size * n}-byte access outside {self.name} (size {self.size} bytes)")
        idx = np.where(active, addr // _U64(size), _U64(0)).astype(np.intp)
        return idx if n == 1 else idx[:, None] + np.arange(n)

    def load(self, addr, active, dt, n=1):
        return self._view(dt)[self._index(addr, active, dt.itemsize, n)]

    def store(self, addr, active, values, dt, n=1):
        idx = self._index(addr, active, dt.itemsize, n)
        self._view(dt)[idx[active]] = np.asarray(values, dt)[active] if np.ndim(values) else values


class Local:
    """Per-thread local memory of one warp: row ``lane`` of a (32, nbytes) array; addresses from 0."""

    def __init__(self, nbytes: int):
        self.size = nbytes
        self.row = (nbytes + 15) // 16 * 16
        self.buf = np.zeros(32 * self.row, np.uint8)
        self._lane = np.arange(32, dtype=np.intp)

    def _index(self, addr, active, size, n):
        _check_align(addr, active, size * n)
        out = active & (addr + _U64(size * n) > _U64(self.size))
        if out.any():
            lane = int(np.argmax(out))
            raise Fault(lane, int(addr[lane]), f"{size * n}-byte access outside local memory (size {self.size} bytes)")
        idx = (np.where(active, addr, _U64(0)).astype(np.intp) + self._lane * self.row) // size
        return idx if n == 1 else idx[:, None] + np.arange(n)

    def load(self, addr, active, dt, n=1):
        return self.buf.view(dt)[self._index(addr, active, dt.itemsize, n)]

    def store(self, addr, active, values, dt, n=1):
        idx = self._index(addr, active, dt.itemsize, n)
        self.buf.view(dt)[idx[active]] = np.asarray(values, dt)[active] if np.ndim(values) else values


class Global:
    """Device memory: regions (numpy byte arrays) at fake device addresses from ``GLOBAL_BASE``."""

    def __init__(self):
        self.bases: list[int] = []
        self.regions: list[tuple[int, int, np.ndarray, str]] = []  # (base, size, buf, name)
        self._next = GLOBAL_BASE
        self._views = {}

    def alloc(self, nbytes: int, name: str = "", data: bytes | None = None) -> int:
        base = self._next
        buf = np.zeros(max((nbytes + 15) // 16 * 16, 16), np.uint8)
        if data is not None:
            buf[: len(data)] = np.frombuffer(data, np.uint8)
        self.bases.append(base)
        self.regions.append((base, nbytes, buf, name))
        self._next = base + (nbytes + _ALIGN - 1) // _ALIGN * _ALIGN + _ALIGN  # a guard gap between regions
        return base

    def region(self, base: int) -> np.ndarray:
        return self.regions[self.bases.index(base)][2]

    def _locate(self, addr, active, size, n):
        """(region index, offsets) when all active lanes hit one region, else None."""
        _check_align(addr, active, size * n)
        a = addr[active]
        lo, hi = int(a.min()), int(a.max())
        i = bisect.bisect_right(self.bases, lo) - 1
        if i >= 0:
            base, rsize = self.regions[i][:2]
            if hi + size * n <= base + rsize:
                return i, base
        for lane in np.nonzero(active)[0]:
            x = int(addr[lane])
            j = bisect.bisect_right(self.bases, x) - 1
            if j < 0 or x + size * n > self.regions[j][0] + self.regions[j][1]:
                raise Fault(int(lane), x, f"{size * n}-byte global access outside every allocation")
        return None

    def _index(self, addr, active, dt, n):
        size = dt.itemsize
        hit = self._locate(addr, active, size, n)
        if hit is None:  # lanes spread over several regions: go lane by lane
            return None
        i, base = hit
        view = self._views.get((i, dt))
        if view is None:
            view = self._views[(i, dt)] = self.regions[i][2].view(dt)
        idx = np.where(active, (addr - _U64(base)) // _U64(size), _U64(0)).astype(np.intp)
        return view, (idx if n == 1 else idx[:, None] + np.arange(n))

    def load(self, addr, active, dt, n=1):
        if not active.any():
            return np.zeros((32, n) if n > 1 else 32, dt)
        hit = self._index(addr, active, dt, n)
        if hit is not None:
            return hit[0][hit[1]]
        out = np.zeros((32, n) if n > 1 else 32, dt)
        for lane in np.nonzero(active)[0]:
            one = np.zeros(32, bool)
            one[lane] = True
            out[lane] = self.load(addr, one, dt, n)[lane]
        return out

    def store(self, addr, active, values, dt, n=1):
        if not active.any():
            return
        hit = self._index(addr, active, dt, n)
        vals = np.broadcast_to(np.asarray(values, dt), (32, n) if n > 1 else (32,))
        if hit is not None:
            hit[0][hit[1][active]] = vals[active]
            return
        for lane in np.nonzero(active)[0]:
            one = np.zeros(32, bool)
            one[lane] = True
            self.store(addr, one, vals, dt, n)
