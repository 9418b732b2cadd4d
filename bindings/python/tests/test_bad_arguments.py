"""Every public function with bad arguments, and the exact exception type it raises.

Wrong Python types fail with TypeError before reaching C; bad values come back from the C layer
as InvalidArgument (a ValueError) or UnknownMode (a LookupError); closed objects raise BadHandle.
Nothing crashes, and the objects still work afterwards. Each kind of error says the call, the
argument, the rule and the value (the same words as in C and Swift).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable

import pytest

import cadence
from cadence import Tick

NAN, INF = math.nan, math.inf
IA, UM, BH = cadence.InvalidArgument, cadence.UnknownMode, cadence.BadHandle


class _EqualsRaises:
    """Not a mode name, and comparing it fails: the type check must come first."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = object.__hash__


NS, TE = cadence.NotSupported, TypeError
BURST = cadence.MissedTickPolicy.BURST


def ignore(tick: Tick) -> None:
    pass


def ignore_n(remaining: int) -> None:
    pass


def ignore_p(poll: cadence.Poll) -> None:
    pass


@dataclass
class Objects:
    loop: cadence.Loop
    virtual: cadence.Loop
    publisher: cadence.TimerPublisher
    auto: cadence.AutoconnectTimerPublisher
    subscription: cadence.Subscription
    connection: cadence.Connection
    timer: cadence.ScheduledTimer
    countdown: cadence.Countdown
    poller: cadence.Poller

    def children(self) -> list[cadence.TimerPublisher | cadence.Cancellable]:
        return [
            self.publisher,
            self.subscription,
            self.connection,
            self.timer,
            self.countdown,
            self.poller,
        ]


def make_objects(loop: cadence.Loop, virtual: cadence.Loop) -> Objects:
    publisher = loop.publish(0.1)
    return Objects(
        loop=loop,
        virtual=virtual,
        publisher=publisher,
        auto=publisher.autoconnect(),
        subscription=publisher.subscribe(ignore),
        connection=publisher.connect(),
        timer=loop.schedule(10.0, ignore),
        countdown=loop.countdown(loop.now() + 100.0, 1.0, ignore_n),
        poller=loop.poller(100.0, ignore_p),
    )


@pytest.fixture
def live() -> Iterator[Objects]:
    with cadence.Loop() as loop, cadence.Loop.virtual() as virtual:
        yield make_objects(loop, virtual)


@pytest.fixture
def closed_children() -> Iterator[Objects]:
    """Every child closed on its own, the loop still open."""
    with cadence.Loop() as loop, cadence.Loop.virtual() as virtual:
        objects = make_objects(loop, virtual)
        for child in [*objects.children(), objects.auto]:
            child.close()
        yield objects


@pytest.fixture
def closed_loop() -> Objects:
    """Everything made from a loop that was then closed."""
    loop = cadence.Loop()
    virtual = cadence.Loop.virtual()
    objects = make_objects(loop, virtual)
    loop.close()
    virtual.close()
    return objects


Call = Callable[[Objects], object]

BAD_CALLS: list[tuple[str, Call, type[BaseException]]] = [
    # Loop.run: seconds
    ("run str", lambda o: o.loop.run("0.1"), TypeError),  # type: ignore[arg-type]
    ("run bool", lambda o: o.loop.run(True), TypeError),
    ("run complex", lambda o: o.loop.run(1j), TypeError),  # type: ignore[arg-type]
    ("run nan", lambda o: o.loop.run(NAN), IA),
    # No duration, or an infinite one, runs until stop: a virtual clock would run to its end.
    ("run None virtual", lambda o: o.virtual.run(None), IA),
    ("run inf virtual", lambda o: o.virtual.run(INF), IA),
    ("run -inf", lambda o: o.loop.run(-INF), IA),
    ("run negative", lambda o: o.loop.run(-1.0), IA),
    ("run tiny negative", lambda o: o.loop.run(-1e-12), IA),
    ("run huge int", lambda o: o.loop.run(10**400), IA),
    # Loop.run: mode
    ("run mode None", lambda o: o.loop.run(0, mode=None), TypeError),  # type: ignore[arg-type]
    ("run mode bytes", lambda o: o.loop.run(0, mode=b"default"), TypeError),  # type: ignore[arg-type]
    ("run mode int", lambda o: o.loop.run(0, mode=1), TypeError),  # type: ignore[arg-type]
    ("run mode empty", lambda o: o.loop.run(0, mode=""), IA),
    ("run mode common", lambda o: o.loop.run(0, mode="common"), IA),
    ("run mode unknown", lambda o: o.loop.run(0, mode="nope"), UM),
    ("run mode case", lambda o: o.loop.run(0, mode="Default"), UM),
    ("run mode NUL", lambda o: o.loop.run(0, mode="default\0x"), IA),
    ("run mode control", lambda o: o.loop.run(0, mode="a\tb"), IA),
    ("run mode too long", lambda o: o.loop.run(0, mode="x" * 256), IA),
    ("run mode surrogate", lambda o: o.loop.run(0, mode="\udcff"), IA),
    ("run mode __eq__ raises", lambda o: o.loop.run(0, mode=_EqualsRaises()), TypeError),  # type: ignore[arg-type]
    ("run mode positional", lambda o: o.loop.run(0, "default"), TypeError),  # type: ignore[call-arg]
    # Modes
    ("add_mode None", lambda o: o.loop.add_mode(None), TypeError),  # type: ignore[arg-type]
    ("add_mode int", lambda o: o.loop.add_mode(3), TypeError),  # type: ignore[arg-type]
    ("add_mode empty", lambda o: o.loop.add_mode(""), IA),
    ("add_mode common", lambda o: o.loop.add_mode("common"), IA),
    ("add_mode newline", lambda o: o.loop.add_mode("a\nb"), IA),
    ("add_mode too long", lambda o: o.loop.add_mode("é" * 128), IA),
    ("add_common_mode None", lambda o: o.loop.add_common_mode(None), TypeError),  # type: ignore[arg-type]
    ("add_common_mode empty", lambda o: o.loop.add_common_mode(""), IA),
    ("add_common_mode common", lambda o: o.loop.add_common_mode("common"), IA),
    ("add_common_mode NUL", lambda o: o.loop.add_common_mode("\0"), IA),
    # Loop.publish
    ("publish None", lambda o: o.loop.publish(None), TypeError),  # type: ignore[arg-type]
    ("publish str", lambda o: o.loop.publish("0.1"), TypeError),  # type: ignore[arg-type]
    ("publish positional tolerance", lambda o: o.loop.publish(0.1, 0.0), TypeError),  # type: ignore[call-arg]
    ("publish zero", lambda o: o.loop.publish(0), IA),
    ("publish negative", lambda o: o.loop.publish(-0.1), IA),
    ("publish nan", lambda o: o.loop.publish(NAN), IA),
    ("publish inf", lambda o: o.loop.publish(INF), IA),
    ("publish tolerance None", lambda o: o.loop.publish(0.1, tolerance=None), TypeError),  # type: ignore[arg-type]
    ("publish tolerance negative", lambda o: o.loop.publish(0.1, tolerance=-0.01), IA),
    ("publish tolerance nan", lambda o: o.loop.publish(0.1, tolerance=NAN), IA),
    ("publish tolerance inf", lambda o: o.loop.publish(0.1, tolerance=INF), IA),
    ("publish mode None", lambda o: o.loop.publish(0.1, mode=None), TypeError),  # type: ignore[arg-type]
    ("publish mode empty", lambda o: o.loop.publish(0.1, mode=""), IA),
    ("publish mode unknown", lambda o: o.loop.publish(0.1, mode="nope"), UM),
    ("publish missed_ticks int", lambda o: o.loop.publish(0.1, missed_ticks=1), TE),  # type: ignore[arg-type]
    ("publish missed_ticks str", lambda o: o.loop.publish(0.1, missed_ticks="BURST"), TE),  # type: ignore[arg-type]
    ("set missed_ticks None", lambda o: setattr(o.publisher, "missed_ticks", None), TE),
    ("set auto missed_ticks int", lambda o: setattr(o.auto, "missed_ticks", 2), TE),
    # Loop.schedule
    ("schedule None delay", lambda o: o.loop.schedule(None, ignore), TypeError),  # type: ignore[arg-type]
    ("schedule negative", lambda o: o.loop.schedule(-1.0, ignore), IA),
    ("schedule nan", lambda o: o.loop.schedule(NAN, ignore), IA),
    ("schedule inf", lambda o: o.loop.schedule(INF, ignore), IA),
    ("schedule callback None", lambda o: o.loop.schedule(0.1, None), TypeError),  # type: ignore[arg-type]
    ("schedule callback int", lambda o: o.loop.schedule(0.1, 42), TypeError),  # type: ignore[arg-type]
    ("schedule swapped", lambda o: o.loop.schedule(ignore, 0.1), TypeError),  # type: ignore[arg-type]
    ("schedule tolerance negative", lambda o: o.loop.schedule(0.1, ignore, tolerance=-1), IA),
    ("schedule tolerance nan", lambda o: o.loop.schedule(0.1, ignore, tolerance=NAN), IA),
    ("schedule mode empty", lambda o: o.loop.schedule(0.1, ignore, mode=""), IA),
    ("schedule mode unknown", lambda o: o.loop.schedule(0.1, ignore, mode="nope"), UM),
    # subscribe
    ("subscribe None", lambda o: o.publisher.subscribe(None), TypeError),  # type: ignore[arg-type]
    ("subscribe int", lambda o: o.publisher.subscribe(42), TypeError),  # type: ignore[arg-type]
    ("autoconnect subscribe str", lambda o: o.auto.subscribe("print"), TypeError),  # type: ignore[arg-type]
    # Not an operation of this kind of object
    ("autoconnect connect", lambda o: o.auto.connect(), NS),
    ("jump_clock real loop", lambda o: o.loop.jump_clock(0.5), NS),
    ("jump_clock real loop zero", lambda o: o.loop.jump_clock(0), NS),
    # Loop.jump_clock (virtual)
    ("jump_clock None", lambda o: o.virtual.jump_clock(None), TypeError),  # type: ignore[arg-type]
    ("jump_clock str", lambda o: o.virtual.jump_clock("1"), TypeError),  # type: ignore[arg-type]
    ("jump_clock bool", lambda o: o.virtual.jump_clock(True), TypeError),
    ("jump_clock nan", lambda o: o.virtual.jump_clock(NAN), IA),
    ("jump_clock inf", lambda o: o.virtual.jump_clock(INF), IA),
    ("jump_clock -inf", lambda o: o.virtual.jump_clock(-INF), IA),
    ("jump_clock negative", lambda o: o.virtual.jump_clock(-0.1), IA),
    ("jump_clock huge int", lambda o: o.virtual.jump_clock(10**400), IA),
    # Loop.start_thread
    ("start_thread mode None", lambda o: o.loop.start_thread(mode=None), TypeError),  # type: ignore[arg-type]
    ("start_thread positional", lambda o: o.loop.start_thread("default"), TypeError),  # type: ignore[call-arg]
    ("start_thread mode empty", lambda o: o.loop.start_thread(mode=""), IA),
    ("start_thread mode common", lambda o: o.loop.start_thread(mode="common"), IA),
    ("start_thread mode unknown", lambda o: o.loop.start_thread(mode="nope"), UM),
    ("start_thread mode NUL", lambda o: o.loop.start_thread(mode="default\0"), IA),
    ("start_thread mode control", lambda o: o.loop.start_thread(mode="a\nb"), IA),
    ("threaded mode unknown", lambda o: o.loop.threaded(mode="nope").__enter__(), UM),
    # Loop.countdown
    ("countdown deadline None", lambda o: o.loop.countdown(None, 1.0, ignore_n), TypeError),  # type: ignore[arg-type]
    ("countdown deadline str", lambda o: o.loop.countdown("5", 1.0, ignore_n), TypeError),  # type: ignore[arg-type]
    ("countdown deadline nan", lambda o: o.loop.countdown(NAN, 1.0, ignore_n), IA),
    ("countdown deadline inf", lambda o: o.loop.countdown(INF, 1.0, ignore_n), IA),
    ("countdown deadline -inf", lambda o: o.loop.countdown(-INF, 1.0, ignore_n), IA),
    ("countdown deadline huge int", lambda o: o.loop.countdown(10**400, 1, ignore_n), IA),
    ("countdown tick None", lambda o: o.loop.countdown(5.0, None, ignore_n), TypeError),  # type: ignore[arg-type]
    ("countdown tick zero", lambda o: o.loop.countdown(5.0, 0, ignore_n), IA),
    ("countdown tick negative", lambda o: o.loop.countdown(5.0, -0.25, ignore_n), IA),
    ("countdown tick nan", lambda o: o.loop.countdown(5.0, NAN, ignore_n), IA),
    ("countdown tick inf", lambda o: o.loop.countdown(5.0, INF, ignore_n), IA),
    ("countdown callback str", lambda o: o.loop.countdown(5.0, 1.0, "print"), TypeError),  # type: ignore[arg-type]
    ("countdown callback int", lambda o: o.loop.countdown(5.0, 1.0, 3), TypeError),  # type: ignore[arg-type]
    ("countdown on_finish int", lambda o: o.loop.countdown(5, 1, ignore_n, on_finish=1), TE),  # type: ignore[arg-type]
    ("countdown on_finish positional", lambda o: o.loop.countdown(5, 1, ignore_n, print), TE),  # type: ignore[call-arg]
    # Loop.poller
    ("poller interval None", lambda o: o.loop.poller(None, ignore_p), TypeError),  # type: ignore[arg-type]
    ("poller interval zero", lambda o: o.loop.poller(0, ignore_p), IA),
    ("poller interval negative", lambda o: o.loop.poller(-30, ignore_p), IA),
    ("poller interval nan", lambda o: o.loop.poller(NAN, ignore_p), IA),
    ("poller interval inf", lambda o: o.loop.poller(INF, ignore_p), IA),
    ("poller operation None", lambda o: o.loop.poller(30, None), TypeError),  # type: ignore[arg-type]
    ("poller operation str", lambda o: o.loop.poller(30, "poll"), TypeError),  # type: ignore[arg-type]
    ("poller tolerance str", lambda o: o.loop.poller(30, ignore_p, tolerance="3"), TE),  # type: ignore[arg-type]
    ("poller tolerance positional", lambda o: o.loop.poller(30, ignore_p, 3.0), TypeError),  # type: ignore[call-arg]
    ("poller tolerance -1 (C: default)", lambda o: o.loop.poller(30, ignore_p, tolerance=-1), IA),
    ("poller tolerance negative", lambda o: o.loop.poller(30, ignore_p, tolerance=-0.5), IA),
    ("poller tolerance nan", lambda o: o.loop.poller(30, ignore_p, tolerance=NAN), IA),
    ("poller tolerance inf", lambda o: o.loop.poller(30, ignore_p, tolerance=INF), IA),
    ("poller finish None", lambda o: o.loop.poller(1, ignore_p, finish_on_return=None), TE),  # type: ignore[arg-type]
    ("poller finish int", lambda o: o.loop.poller(1, ignore_p, finish_on_return=0), TE),  # type: ignore[arg-type]
    # Poller methods
    ("set_active str", lambda o: o.poller.set_active("no"), TypeError),  # type: ignore[arg-type]
    ("set_active int", lambda o: o.poller.set_active(0), TypeError),  # type: ignore[arg-type]
    ("set_active None", lambda o: o.poller.set_active(None), TypeError),  # type: ignore[arg-type]
    ("poller finish str", lambda o: o.poller.finish("1"), TypeError),  # type: ignore[arg-type]
    ("poller finish float", lambda o: o.poller.finish(1.0), TypeError),  # type: ignore[arg-type]
    ("poller finish bool", lambda o: o.poller.finish(True), TypeError),
    ("poller finish negative", lambda o: o.poller.finish(-1), IA),
    ("poller finish too large", lambda o: o.poller.finish(2**64), IA),
]


@pytest.mark.parametrize(
    ("call", "expected"), [case[1:] for case in BAD_CALLS], ids=[case[0] for case in BAD_CALLS]
)
def test_bad_argument(live: Objects, call: Call, expected: type[BaseException]) -> None:
    with pytest.raises(expected) as info:
        call(live)
    assert type(info.value) is expected
    # Nothing was corrupted: the loop still runs, and the objects still answer.
    live.loop.run(0.0)
    live.virtual.run(0.0)
    assert not live.loop.has_thread
    assert not live.subscription.cancelled
    assert not live.timer.cancelled
    assert not live.countdown.cancelled
    assert live.poller.active


CLOSED_CALLS: list[tuple[str, Call]] = [
    ("publisher.subscribe", lambda o: o.publisher.subscribe(ignore)),
    ("publisher.connect", lambda o: o.publisher.connect()),
    ("publisher.autoconnect", lambda o: o.publisher.autoconnect()),
    ("auto.subscribe", lambda o: o.auto.subscribe(ignore)),
    ("auto.connect", lambda o: o.auto.connect()),
    ("publisher.missed_ticks =", lambda o: setattr(o.publisher, "missed_ticks", BURST)),
    ("auto.missed_ticks =", lambda o: setattr(o.auto, "missed_ticks", BURST)),
    ("subscription.cancel", lambda o: o.subscription.cancel()),
    ("subscription.cancelled", lambda o: o.subscription.cancelled),
    ("connection.cancel", lambda o: o.connection.cancel()),
    ("connection.cancelled", lambda o: o.connection.cancelled),
    ("timer.cancel", lambda o: o.timer.cancel()),
    ("timer.cancelled", lambda o: o.timer.cancelled),
    ("timer.pending", lambda o: o.timer.pending),
    ("countdown.cancel", lambda o: o.countdown.cancel()),
    ("countdown.cancelled", lambda o: o.countdown.cancelled),
    ("poller.cancel", lambda o: o.poller.cancel()),
    ("poller.cancelled", lambda o: o.poller.cancelled),
    ("poller.active", lambda o: o.poller.active),
    ("poller.set_active", lambda o: o.poller.set_active(True)),
    ("poller.tolerance", lambda o: o.poller.tolerance),
    ("poller.finish", lambda o: o.poller.finish(1)),
]

LOOP_CALLS: list[tuple[str, Call]] = [
    ("loop.run", lambda o: o.loop.run(0.0)),
    ("loop.stop", lambda o: o.loop.stop()),
    ("loop.add_mode", lambda o: o.loop.add_mode("x")),
    ("loop.add_common_mode", lambda o: o.loop.add_common_mode("x")),
    ("loop.now", lambda o: o.loop.now()),
    ("loop.wakeups", lambda o: o.loop.wakeups),
    ("loop.armed_timer_count", lambda o: o.loop.armed_timer_count),
    ("loop.publish", lambda o: o.loop.publish(0.1)),
    ("loop.schedule", lambda o: o.loop.schedule(0.1, ignore)),
    ("loop.countdown", lambda o: o.loop.countdown(5.0, 1.0, ignore_n)),
    ("loop.poller", lambda o: o.loop.poller(30.0, ignore_p)),
    ("loop.start_thread", lambda o: o.loop.start_thread()),
    ("loop.stop_thread", lambda o: o.loop.stop_thread()),
    ("loop.threaded", lambda o: o.loop.threaded().__enter__()),
    ("loop.jump_clock", lambda o: o.loop.jump_clock(1.0)),
    ("virtual.jump_clock", lambda o: o.virtual.jump_clock(1.0)),
    ("virtual.run", lambda o: o.virtual.run(1.0)),
]


@pytest.mark.parametrize(
    "call", [case[1] for case in CLOSED_CALLS], ids=[case[0] for case in CLOSED_CALLS]
)
def test_closed_child_raises_bad_handle(closed_children: Objects, call: Call) -> None:
    with pytest.raises(BH) as info:
        call(closed_children)
    assert type(info.value) is BH
    # "Subscription.cancel: cancellable must be a live ... handle, got 0x..." (C's words)
    call_name, _, detail = str(info.value).partition(": ")
    assert call_name == info.value.context
    assert " must be a live " in detail, detail


@pytest.mark.parametrize(
    "call",
    [case[1] for case in CLOSED_CALLS + LOOP_CALLS],
    ids=[case[0] for case in CLOSED_CALLS + LOOP_CALLS],
)
def test_closed_loop_raises_bad_handle(closed_loop: Objects, call: Call) -> None:
    with pytest.raises(BH) as info:
        call(closed_loop)
    assert type(info.value) is BH


def _resume_cancelled(poller: cadence.Poller) -> None:
    poller.cancel()
    poller.set_active(True)


MESSAGES: list[tuple[str, Call, type[BaseException], str]] = [
    ("nan", lambda o: o.loop.schedule(NAN, ignore), IA,
     "Loop.schedule: delay must be >= 0 and finite, got nan"),
    ("infinity", lambda o: o.loop.publish(INF), IA,
     "Loop.publish: interval must be > 0 and finite, got inf"),
    ("negative", lambda o: o.loop.run(-1.0), IA,
     "Loop.run: seconds must be >= 0, or infinity to run until stopped, got -1.0"),
    ("nan run", lambda o: o.loop.run(NAN), IA,
     "Loop.run: seconds must be >= 0, or infinity to run until stopped, got nan"),
    ("zero interval", lambda o: o.loop.schedule(0, ignore, interval=0), IA,
     "Loop.schedule: interval must be > 0 and finite, got 0.0"),
    ("negative tolerance", lambda o: o.loop.publish(1, tolerance=-1), IA,
     "Loop.publish: tolerance must be >= 0 and finite, got -1.0"),
    ("unknown mode", lambda o: o.loop.publish(1, mode="fast"), UM,
     'Loop.publish: mode must be registered on the loop first (added as a mode or a common mode), '
     'got "fast"'),
    ("empty mode", lambda o: o.loop.add_mode(""), IA,
     'Loop.add_mode: mode must be 1-255 bytes of UTF-8 without control characters, got ""'),
    ("control past ASCII", lambda o: o.loop.add_mode("a\x85b"), IA,
     'Loop.add_mode: mode must be 1-255 bytes of UTF-8 without control characters, '
     'got "a\\u{0085}b"'),
    ("line separator", lambda o: o.loop.run(1, mode="x\u2028y\u202e"), UM,
     'Loop.run: mode must be registered on the loop first (added as a mode or a common mode), '
     'got "x\\u{2028}y\\u{202E}"'),
    ("long mode", lambda o: o.loop.add_mode("m" * 300), IA,
     'Loop.add_mode: mode must be 1-255 bytes of UTF-8 without control characters, '
     'got "' + "m" * 255 + '"... (300 bytes)'),
    ("run in common", lambda o: o.loop.run(1, mode="common"), IA,
     'Loop.run: mode must not be "common" (a pseudo-mode, never run itself), got "common"'),
    ("countdown tick", lambda o: o.loop.countdown(5.0, 0.0, ignore_n), IA,
     "Loop.countdown: tick must be > 0 and finite, got 0.0"),
    ("virtual loop thread", lambda o: o.virtual.start_thread(), NS,
     "Loop.start_thread: loop must be a real loop, got a virtual loop "
     "(its clock moves only when told)"),
    ("real loop clock", lambda o: o.loop.jump_clock(1.0), NS,
     "Loop.jump_clock: loop must be a virtual loop, got a real loop (its clock is libuv's)"),
    ("autoconnect connect", lambda o: o.auto.connect(), NS,
     "AutoconnectTimerPublisher.connect: publisher must be a connectable publisher, "
     "got an autoconnect publisher"),
    ("resume cancelled", lambda o: _resume_cancelled(o.poller), cadence.AlreadyCancelled,
     "Poller.set_active: poller must not be cancelled, got a cancelled poller"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "expected", "message"),
    [case[1:] for case in MESSAGES],
    ids=[case[0] for case in MESSAGES],
)
def test_each_kind_of_error_says_what_is_wrong(
    live: Objects, call: Call, expected: type[BaseException], message: str
) -> None:
    with pytest.raises(expected) as info:
        call(live)
    assert type(info.value) is expected
    assert str(info.value) == message


def test_busy_and_closed_loops_say_what_is_wrong(live: Objects) -> None:
    errors: list[BaseException] = []

    def run_again(tick: Tick) -> None:
        try:
            live.virtual.run(1.0)
        except cadence.LoopBusy as error:
            errors.append(error)

    live.virtual.schedule(1.0, run_again)
    live.virtual.run(2.0)
    assert [str(error) for error in errors] == [
        "Loop.run: loop must not be running, attached to asyncio or on a thread of its own, got "
        "one that is (called from one of its callbacks, from another thread, after start_thread "
        "or attach_asyncio?)"
    ]
    live.virtual.close()
    with pytest.raises(BH, match=r"^Loop\.now: loop must be open, got a closed loop$"):
        live.virtual.now()


def test_a_bad_call_never_calls_its_callback(live: Objects) -> None:
    called: list[object] = []
    for bad in (-1.0, NAN, INF):
        with pytest.raises(IA):
            live.loop.schedule(bad, called.append)
        with pytest.raises(IA):
            live.loop.countdown(5.0, bad, called.append, on_finish=lambda: called.append(0))
        with pytest.raises(IA):
            live.virtual.poller(bad, called.append)
        with pytest.raises(IA):
            live.virtual.poller(1.0, called.append, tolerance=bad)
    with pytest.raises(UM):
        live.loop.schedule(0.0, called.append, mode="nope")
    live.loop.run(0.02)
    live.virtual.run(10.0)
    assert called == []
    assert live.virtual.armed_timer_count == 0


def test_double_cancel_and_double_close_are_fine(live: Objects) -> None:
    for cancellable in (
        live.subscription,
        live.connection,
        live.timer,
        live.countdown,
        live.poller,
    ):
        assert cancellable.cancel() is True
        assert cancellable.cancel() is False
        assert cancellable.cancelled
        cancellable.close()
        cancellable.close()
        assert cancellable.closed
    for publisher in (live.publisher, live.auto):
        publisher.close()
        publisher.close()
    live.loop.stop_thread()  # no thread: nothing to do
    live.loop.close()
    live.loop.close()
    assert live.loop.closed


def test_tick_is_immutable() -> None:
    tick = Tick(fire_date=1.5, skipped=0)
    with pytest.raises(AttributeError):
        tick.fire_date = 2.0  # type: ignore[misc]
    fire_date, skipped = tick
    assert (fire_date, skipped) == (1.5, 0)


def test_tick_fields_show_their_types() -> None:
    """help(cadence.Tick) shows float and int, not forward references."""
    assert str(inspect.signature(Tick)) == "(fire_date: float, skipped: int)"


def test_a_closed_loop_says_it_is_closed_in_every_call() -> None:
    """A call on a closed loop names the cause, as Swift's ``CadenceError.loopClosed`` does, not
    the C layer's list of causes of a dead handle."""
    loop = cadence.Loop()
    loop.close()
    calls: dict[str, Callable[[], object]] = {
        "Loop.schedule": lambda: loop.schedule(1.0, lambda tick: None),
        "Loop.schedule ": lambda: loop.schedule(1.0, lambda tick: None, tolerance=0.1),
        "Loop.run": lambda: loop.run(0.01),
        "Loop.now": loop.now,
        "Loop.stop": loop.stop,
        "Loop.add_mode": lambda: loop.add_mode("tracking"),
    }
    for where, call in calls.items():
        with pytest.raises(cadence.BadHandle) as raised:
            call()
        assert str(raised.value) == f"{where.strip()}: loop must be open, got a closed loop"
