"""The binding keeps no copy of the engine's state: each setting made from Python (at creation or
through a setter) is read back here through the C getters on the object's handle, not through a
Python attribute, and the Python property agrees with C after every change."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

import cadence
from cadence import _cancels, _lib

MISSED = cadence.MissedTickPolicy
C = _lib.lib


def read(getter: str, handle: int, out: Any) -> Any:
    """What ``cadence_<getter>(handle, &out)`` writes; the call must succeed."""
    assert getattr(C, f"cadence_{getter}")(handle, out) == 0, getter
    return out.value


def double(getter: str, handle: int) -> float:
    return float(read(getter, handle, ctypes.c_double()))


def integer(getter: str, handle: int) -> int:
    return int(read(getter, handle, ctypes.c_int()))


def mode_of(publisher: Any) -> str:
    name = ctypes.create_string_buffer(256)
    length = C.cadence_publisher_mode(publisher._handle, name, len(name))
    assert length == len(name.value)
    return name.value.decode()


def test_publisher_settings_and_missed_ticks_setter_are_cs(virtual_loop: cadence.Loop) -> None:
    virtual_loop.add_mode("tracking")
    publisher = virtual_loop.publish(0.25, tolerance=0.0125, mode="tracking")
    handle = publisher._handle
    assert (double("publisher_interval", handle), double("publisher_tolerance", handle)) == (
        0.25,
        0.0125,
    )
    assert mode_of(publisher) == "tracking" == publisher.mode
    assert integer("publisher_missed_ticks", handle) == MISSED.SKIP.value
    for policy in (MISSED.BURST, MISSED.DELAY, MISSED.SKIP, MISSED.DELAY):
        publisher.missed_ticks = policy
        assert integer("publisher_missed_ticks", handle) == policy.value
        assert publisher.missed_ticks is policy
    with pytest.raises(TypeError):
        publisher.missed_ticks = 1  # type: ignore[assignment]
    assert integer("publisher_missed_ticks", handle) == MISSED.DELAY.value  # unchanged

    auto = publisher.autoconnect()  # copies the policy in C
    assert integer("publisher_missed_ticks", auto._handle) == MISSED.DELAY.value
    auto.missed_ticks = MISSED.BURST
    assert integer("publisher_missed_ticks", auto._handle) == MISSED.BURST.value
    assert integer("publisher_missed_ticks", handle) == MISSED.DELAY.value  # its own
    assert double("publisher_interval", auto._handle) == 0.25 == auto.interval
    assert double("publisher_tolerance", auto._handle) == 0.0125 == auto.tolerance
    assert mode_of(auto) == "tracking" == auto.mode

    made = virtual_loop.publish(1.0, missed_ticks=MISSED.BURST)  # the keyword sets it in C
    assert integer("publisher_missed_ticks", made._handle) == MISSED.BURST.value
    assert mode_of(made) == "default"


def test_a_closed_publisher_has_no_settings_to_read(virtual_loop: cadence.Loop) -> None:
    publisher = virtual_loop.publish(0.5)
    publisher.close()
    for name in ("interval", "tolerance", "mode", "missed_ticks"):
        with pytest.raises(cadence.BadHandle, match=rf"^TimerPublisher\.{name}: publisher must"):
            getattr(publisher, name)
    assert repr(publisher) == "<cadence.TimerPublisher closed>"


def test_scheduled_timer_setters_are_read_back_through_c(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(2.0, lambda tick: None, interval=0.5, tolerance=0.05)
    handle = timer._handle
    assert double("timer_fire_date", handle) == 2.0
    assert (double("timer_interval", handle), double("timer_tolerance", handle)) == (0.5, 0.05)
    virtual_loop.jump_clock(0.75)
    assert double("loop_now", virtual_loop._state.handle) == 0.75
    timer.reset(1.0)
    assert double("timer_fire_date", handle) == 1.75 == timer.fire_date
    timer.unref()
    assert integer("timer_has_ref", handle) == 0
    timer.ref()
    assert integer("timer_has_ref", handle) == 1
    assert integer("is_cancelled", handle) == 0
    assert timer.cancel()
    _cancels.flush()  # a cancel made here is recorded, and reaches C at the next flush
    assert integer("is_cancelled", handle) == 1


def test_poller_and_countdown_settings_and_active_setter_are_cs(
    virtual_loop: cadence.Loop,
) -> None:
    poller = virtual_loop.poller(30.0, lambda poll: None)
    assert double("poller_interval", poller._handle) == 30.0 == poller.interval
    assert double("poller_tolerance", poller._handle) == 3.0 == poller.tolerance
    assert integer("poller_active", poller._handle) == 1
    poller.set_active(False)
    assert integer("poller_active", poller._handle) == 0
    assert not poller.active
    poller.set_active(True)
    assert integer("poller_active", poller._handle) == 1
    with virtual_loop.poller(2.0, lambda poll: None, tolerance=0.0) as given:
        assert double("poller_tolerance", given._handle) == 0.0 == given.tolerance

    countdown = virtual_loop.countdown(3.0, 0.25)
    assert double("countdown_deadline", countdown._handle) == 3.0 == countdown.deadline
    assert double("countdown_tick", countdown._handle) == 0.25 == countdown.tick
    virtual_loop.run(4.0)
    assert countdown.finished
    assert double("countdown_deadline", countdown._handle) == 3.0 == countdown.deadline
    countdown.close()
    with pytest.raises(cadence.BadHandle, match=r"^Countdown\.deadline: "):
        _ = countdown.deadline
    poller.close()
    with pytest.raises(cadence.BadHandle, match=r"^Poller\.interval: "):
        _ = poller.interval


def test_a_loops_own_thread_is_read_from_c() -> None:
    with cadence.Loop() as loop:
        handle = loop._state.handle
        assert integer("loop_has_thread", handle) == 0
        assert not loop.has_thread
        loop.start_thread()
        assert integer("loop_has_thread", handle) == 1
        assert loop.has_thread
        assert loop.running
        loop.stop_thread()
        assert integer("loop_has_thread", handle) == 0
        assert not loop.has_thread


def test_common_modes_are_read_from_c(virtual_loop: cadence.Loop) -> None:
    timer = virtual_loop.schedule(1.0, lambda tick: None, mode="common")
    alive = ctypes.c_int()
    virtual_loop.add_mode("plain")
    assert C.cadence_loop_alive(virtual_loop._state.handle, b"plain", alive) == 0
    assert alive.value == 0  # "common" timers do not fire in a plain mode
    virtual_loop.add_common_mode("plain")
    assert C.cadence_loop_alive(virtual_loop._state.handle, b"plain", alive) == 0
    assert alive.value == 1
    timer.close()
