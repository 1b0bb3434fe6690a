"""A unit's busy cycles booked ahead of time: :class:`Slots` (the L1 data path, whose turns are asked for at a
request's issue for when its data is there, a miss's hundreds of cycles later)."""
from __future__ import annotations

from bisect import bisect_right


class Slots:
    """The busy intervals ``[start, end)`` of one unit, sorted and disjoint. A booking takes the earliest gap that
    holds it from its ready cycle on, so a turn booked for later leaves the cycles before it to requests booked
    after it but ready sooner."""

    __slots__ = ("starts", "ends")

    def __init__(self):
        self.starts: list[float] = []
        self.ends: list[float] = []

    def earliest(self, ready: float, length: float) -> float:
        """The first cycle from ``ready`` on that has ``length`` cycles free."""
        s = ready
        i = bisect_right(self.ends, s)  # the first interval still busy after s
        starts, ends = self.starts, self.ends
        while i < len(starts) and starts[i] < s + length:
            if ends[i] > s:
                s = ends[i]
            i += 1
        return s

    def book(self, start: float, length: float) -> None:
        """Mark ``[start, start + length)`` busy (free, as :meth:`earliest` found it); touching intervals join."""
        end = start + length
        starts, ends = self.starts, self.ends
        i = bisect_right(starts, start)
        if i > 0 and ends[i - 1] >= start:  # joins the one before
            i -= 1
            ends[i] = max(ends[i], end)
        else:
            starts.insert(i, start)
            ends.insert(i, end)
        if i + 1 < len(starts) and starts[i + 1] <= ends[i]:  # and the one after
            ends[i] = max(ends[i], ends[i + 1])
            del starts[i + 1], ends[i + 1]

    def forget(self, before: float) -> None:
        """Drop the intervals over by ``before`` (no booking asks for a cycle before it again)."""
        k = bisect_right(self.ends, before)
        if k:
            del self.starts[:k], self.ends[:k]
