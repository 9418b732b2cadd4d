"""The value passed to timer callbacks."""

from typing import NamedTuple

__all__ = ["Tick"]


class Tick(NamedTuple):
    """One firing of a timer, as passed to every callback. Immutable.

    Attributes:
        fire_date: when the tick was due on the timer's grid, in seconds since the Unix epoch
            (float, same scale as :meth:`Loop.now` and :func:`time.time`). It is the scheduled
            time, not the time the callback started: use it rather than reading the clock, so that
            what you compute from it does not drift with the loop's lateness.
        skipped: how many grid points were skipped before this fire because the loop got to the
            timer late (0 when on time; always 0 for a one-shot timer).

    A ``Tick`` is a tuple, so ``fire_date, skipped = tick`` works.
    """

    fire_date: float
    skipped: int
