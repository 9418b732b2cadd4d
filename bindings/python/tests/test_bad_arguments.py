"""Every public function with bad arguments, and the exact exception type it raises.

Wrong Python types fail with TypeError before reaching C; bad values come back from the C layer
as InvalidArgument (a ValueError) or UnknownMode (a LookupError); closed objects raise BadHandle.
Nothing crashes, and the objects still work afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable

import pytest

import cadence
from cadence import Tick

NAN, INF = math.nan, math.inf
IA, UM, BH = cadence.InvalidArgument, cadence.UnknownMode, cadence.BadHandle


def ignore(tick: Tick) -> None:
    pass


@dataclass
class Objects:
    loop: cadence.Loop
    publisher: cadence.TimerPublisher
    auto: cadence.AutoconnectTimerPublisher
    subscription: cadence.Subscription
    connection: cadence.Connection
    one_shot: cadence.OneShotTimer


def make_objects(loop: cadence.Loop) -> Objects:
    publisher = loop.publish(0.1)
    return Objects(
        loop=loop,
        publisher=publisher,
        auto=publisher.autoconnect(),
        subscription=publisher.sink(ignore),
        connection=publisher.connect(),
        one_shot=loop.schedule(10.0, ignore),
    )


@pytest.fixture
def live() -> Iterator[Objects]:
    with cadence.Loop() as loop:
        yield make_objects(loop)


@pytest.fixture
def closed_children() -> Iterator[Objects]:
    """Every child closed on its own, the loop still open."""
    with cadence.Loop() as loop:
        objects = make_objects(loop)
        for child in (
            objects.publisher,
            objects.auto,
            objects.subscription,
            objects.connection,
            objects.one_shot,
        ):
            child.close()
        yield objects


@pytest.fixture
def closed_loop() -> Objects:
    """Everything made from a loop that was then closed."""
    loop = cadence.Loop()
    objects = make_objects(loop)
    loop.close()
    return objects


Call = Callable[[Objects], object]

BAD_CALLS: list[tuple[str, Call, type[BaseException]]] = [
    # Loop.run: seconds
    ("run None", lambda o: o.loop.run(None), TypeError),  # type: ignore[arg-type]
    ("run str", lambda o: o.loop.run("0.1"), TypeError),  # type: ignore[arg-type]
    ("run bool", lambda o: o.loop.run(True), TypeError),
    ("run complex", lambda o: o.loop.run(1j), TypeError),  # type: ignore[arg-type]
    ("run nan", lambda o: o.loop.run(NAN), IA),
    ("run inf", lambda o: o.loop.run(INF), IA),
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
    # sink
    ("sink None", lambda o: o.publisher.sink(None), TypeError),  # type: ignore[arg-type]
    ("sink int", lambda o: o.publisher.sink(42), TypeError),  # type: ignore[arg-type]
    ("autoconnect sink str", lambda o: o.auto.sink("print"), TypeError),  # type: ignore[arg-type]
    # Not an operation of this kind of object
    ("autoconnect connect", lambda o: o.auto.connect(), AttributeError),  # type: ignore[attr-defined]
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
    assert not live.subscription.cancelled
    assert not live.one_shot.cancelled


CLOSED_CALLS: list[tuple[str, Call]] = [
    ("publisher.sink", lambda o: o.publisher.sink(ignore)),
    ("publisher.connect", lambda o: o.publisher.connect()),
    ("publisher.autoconnect", lambda o: o.publisher.autoconnect()),
    ("auto.sink", lambda o: o.auto.sink(ignore)),
    ("subscription.cancel", lambda o: o.subscription.cancel()),
    ("subscription.cancelled", lambda o: o.subscription.cancelled),
    ("connection.cancel", lambda o: o.connection.cancel()),
    ("connection.cancelled", lambda o: o.connection.cancelled),
    ("one_shot.cancel", lambda o: o.one_shot.cancel()),
    ("one_shot.cancelled", lambda o: o.one_shot.cancelled),
    ("one_shot.pending", lambda o: o.one_shot.pending),
]

LOOP_CALLS: list[tuple[str, Call]] = [
    ("loop.run", lambda o: o.loop.run(0.0)),
    ("loop.stop", lambda o: o.loop.stop()),
    ("loop.add_mode", lambda o: o.loop.add_mode("x")),
    ("loop.add_common_mode", lambda o: o.loop.add_common_mode("x")),
    ("loop.now", lambda o: o.loop.now()),
    ("loop.wakeups", lambda o: o.loop.wakeups),
    ("loop.publish", lambda o: o.loop.publish(0.1)),
    ("loop.schedule", lambda o: o.loop.schedule(0.1, ignore)),
]


@pytest.mark.parametrize(
    "call", [case[1] for case in CLOSED_CALLS], ids=[case[0] for case in CLOSED_CALLS]
)
def test_closed_child_raises_bad_handle(closed_children: Objects, call: Call) -> None:
    with pytest.raises(BH) as info:
        call(closed_children)
    assert type(info.value) is BH
    assert "on a closed" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [case[1] for case in CLOSED_CALLS + LOOP_CALLS],
    ids=[case[0] for case in CLOSED_CALLS + LOOP_CALLS],
)
def test_closed_loop_raises_bad_handle(closed_loop: Objects, call: Call) -> None:
    with pytest.raises(BH) as info:
        call(closed_loop)
    assert type(info.value) is BH


def test_a_bad_call_never_calls_its_callback(live: Objects) -> None:
    called: list[Tick] = []
    for bad in (-1.0, NAN, INF):
        with pytest.raises(IA):
            live.loop.schedule(bad, called.append)
    with pytest.raises(UM):
        live.loop.schedule(0.0, called.append, mode="nope")
    live.loop.run(0.02)
    assert called == []


def test_double_cancel_and_double_close_are_fine(live: Objects) -> None:
    for cancellable in (live.subscription, live.connection, live.one_shot):
        assert cancellable.cancel() is True
        assert cancellable.cancel() is False
        assert cancellable.cancelled
        cancellable.close()
        cancellable.close()
        assert cancellable.closed
    for publisher in (live.publisher, live.auto):
        publisher.close()
        publisher.close()
    live.loop.close()
    live.loop.close()
    assert live.loop.closed


def test_tick_is_immutable() -> None:
    tick = Tick(fire_date=1.5, skipped=0)
    with pytest.raises(AttributeError):
        tick.fire_date = 2.0  # type: ignore[misc]
    fire_date, skipped = tick
    assert (fire_date, skipped) == (1.5, 0)
