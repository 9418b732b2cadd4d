"""The pytest plugin of Cadence: fixtures for testing timer code exactly, in virtual time.

Installing the package registers it with pytest (the ``pytest11`` entry point
``cadence.pytest_plugin``; ``-p no:cadence.pytest_plugin`` turns it off), so every test can ask
for:

- ``virtual_loop``: a fresh :meth:`Loop.virtual() <cadence.Loop.virtual>`, its clock at 0, closed
  after the test. ``virtual_loop.run(seconds)`` moves time on and fires every timer on the way,
  at once and exactly; ``jump_clock(seconds)`` moves it without firing (a blocked thread).
- ``timeline``: a :class:`~cadence.testing.Timeline` on ``virtual_loop``, which records values as
  ``"value@ms"`` strings.

::

    def test_countdown(virtual_loop, timeline):
        countdown = virtual_loop.countdown(
            virtual_loop.now() + 3.0, 0.25, timeline, on_finish=timeline.finish
        )
        virtual_loop.run(3.0)
        assert timeline.events == ["3@0", "2@1000", "1@2000", "0@3000", "|@3000"]

Async code runs on :mod:`cadence.asyncio`'s virtual event loop with the marker
``cadence_asyncio``: the test's own ``async def`` is run on a fresh
:class:`~cadence.asyncio.VirtualEventLoop`, whose clock starts at 0 for every test and jumps to
the next timer whenever nothing can run (``cadence_asyncio(virtual=False)``: on a real
:class:`~cadence.asyncio.EventLoop`; ``tolerance=``, ``idle_limit=`` and ``time_limit=`` as for
:func:`cadence.asyncio.run`)::

    @pytest.mark.cadence_asyncio
    async def test_retry_waits_an_hour():
        loop = asyncio.get_running_loop()
        await asyncio.sleep(3600)
        assert loop.time() == 3600.0

The marker on a module or a class (``pytestmark``) runs its ``async def`` tests so and leaves its
plain ones as they are. With pytest-asyncio, give it Cadence's loops instead, in a
``conftest.py``: since pytest-asyncio 1.4 through its hook, ``pytest_asyncio_loop_factories``
returning ``{"cadence": cadence.asyncio.VirtualEventLoop}``; in 0.23 to 1.3 through its fixture,
``event_loop_policy`` returning ``cadence.asyncio.EventLoopPolicy(virtual=True)``.

Code under test takes the loop as an argument (or a factory), so that production passes a real
``cadence.Loop()`` and the test passes ``virtual_loop``. Without installing the package, load the
plugin with ``pytest -p cadence.pytest_plugin`` or ``pytest_plugins = ["cadence.pytest_plugin"]``
in a ``conftest.py``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from . import asyncio as cadence_asyncio
from ._asyncio_run import run_made
from .loop import Loop
from .testing import Timeline

__all__ = ["pytest_configure", "pytest_pyfunc_call", "timeline", "virtual_loop"]


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ``cadence_asyncio`` marker."""
    config.addinivalue_line(
        "markers",
        "cadence_asyncio(virtual=True, tolerance=0.0, idle_limit=30.0, time_limit=None): run "
        "this async test on a fresh cadence.asyncio.VirtualEventLoop (virtual=False: a real "
        "cadence.asyncio.EventLoop); options as for cadence.asyncio.run",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Runs an ``async def`` test marked ``cadence_asyncio`` on a fresh Cadence event loop (each
    example on one of its own, for a Hypothesis test)."""
    marker = pyfuncitem.get_closest_marker("cadence_asyncio")
    if marker is None:
        return None
    test = pyfuncitem.obj
    examples = getattr(test, "hypothesis", None)  # @given: Hypothesis calls inner_test per example
    inner = examples.inner_test if examples else None
    if inspect.iscoroutinefunction(inner):
        options = _options(marker)
        _refuse_async_fixtures(pyfuncitem)
        # Hypothesis's test calls inner_test per example: this item's own, put back after, so
        # that an unmarked case of the same function (parametrized) is left as it is.
        examples.inner_test = _each_example(inner, options)  # type: ignore[union-attr]
        try:
            test(**_arguments(pyfuncitem))
        finally:
            examples.inner_test = inner  # type: ignore[union-attr]
        return True
    if not inspect.iscoroutinefunction(test):
        if not any(mark.name == "cadence_asyncio" for mark in pyfuncitem.own_markers):
            return None  # a plain test of a marked module or class: pytest runs it
        if inspect.iscoroutinefunction(inspect.unwrap(test)):
            pytest.fail(
                "cadence_asyncio runs an 'async def' test itself, but another plugin runs this "
                "one (pytest-asyncio's auto mode or its asyncio marker): give pytest-asyncio "
                "Cadence's loop instead, through its pytest_asyncio_loop_factories hook "
                "(pytest-asyncio 1.4 and later) or its event_loop_policy fixture (0.23 to 1.3) "
                "(docs/python.md, 'Testing on virtual time')",
                pytrace=False,
            )
        pytest.fail(
            "cadence_asyncio marks an 'async def' test, and this one is a plain function: take "
            "the marker off, or make the test 'async def'",
            pytrace=False,
        )
    options = _options(marker)  # checked before the test's coroutine is made
    _refuse_async_fixtures(pyfuncitem)
    made = pyfuncitem.stash.get(_MADE, None)  # virtual_loop's: its loop.cadence is the fixture
    if made is None:
        cadence_asyncio.run(test(**_arguments(pyfuncitem)), **options)
    else:
        run_made(test(**_arguments(pyfuncitem)), lambda: made)
    return True


def _arguments(item: pytest.Function) -> dict[str, Any]:
    """The test function's arguments among the item's fixture values (as pytest passes them)."""
    names = inspect.signature(item.obj).parameters
    return {name: value for name, value in item.funcargs.items() if name in names}


#: The event loop that ``virtual_loop`` made for a marked test, to run it on.
_MADE = pytest.StashKey[asyncio.AbstractEventLoop]()


def _each_example(test: Any, options: dict[str, Any]) -> Any:
    """What runs each example of a Hypothesis test on a fresh event loop of ``options``."""

    @functools.wraps(test)
    def run_example(*args: Any, **kwargs: Any) -> None:
        cadence_asyncio.run(test(*args, **kwargs), **options)

    return run_example


def _refuse_async_fixtures(item: pytest.Function) -> None:
    """Fails a marked test that asks for an async fixture: another plugin (pytest-asyncio) made it
    on a loop of its own, which does not run during the test."""
    for name in item.fixturenames:
        # The last definition, and each one it extends (a fixture that asks for its own name
        # gets the definition before it: a plain override of an async fixture).
        for definition in reversed(item._fixtureinfo.name2fixturedefs.get(name, ())):
            made = inspect.unwrap(definition.func)
            if inspect.iscoroutinefunction(made) or inspect.isasyncgenfunction(made):
                pytest.fail(
                    f"cadence_asyncio runs the test on a loop of its own, and the async fixture "
                    f"{name!r} was made on another, which does not run during the test: make it "
                    "a plain fixture, or run the test with pytest-asyncio on Cadence's loop "
                    "(docs/python.md, 'Testing on virtual time')",
                    pytrace=False,
                )
            if name not in definition.argnames:
                break


_OPTIONS = ("virtual", "tolerance", "idle_limit", "time_limit")


def _options(marker: pytest.Mark) -> dict[str, Any]:
    """The marker's options with their defaults; a bad one fails the test, naming the marker."""
    given = ", ".join([*map(repr, marker.args), *(f"{k}={v!r}" for k, v in marker.kwargs.items())])
    where = f"cadence_asyncio({given})"
    if marker.args:
        pytest.fail(f"{where}: options must be given by name ({', '.join(_OPTIONS)})", False)
    unknown = sorted(set(marker.kwargs) - set(_OPTIONS))
    if unknown:
        pytest.fail(f"{where}: unknown option {unknown[0]!r} (known: {', '.join(_OPTIONS)})", False)
    options: dict[str, Any] = {"virtual": True, "tolerance": 0.0, **marker.kwargs}
    if not isinstance(options["virtual"], bool):
        pytest.fail(f"{where}: virtual must be True or False, got {options['virtual']!r}", False)
    try:
        cadence_asyncio.EventLoopPolicy(**options)  # checks the numbers
    except (TypeError, ValueError) as error:  # InvalidArgument is a ValueError
        pytest.fail(f"{where}: {error}", False)
    return options


@pytest.fixture
def virtual_loop(request: pytest.FixtureRequest) -> Iterator[Loop]:
    """A loop on a virtual clock at 0, for exact and instant timer tests; closed after the test
    (with everything made from it). For an ``async def`` test marked ``cadence_asyncio``
    (virtual), the Cadence loop of the event loop the test runs on (``loop.cadence``)."""
    marker = request.node.get_closest_marker("cadence_asyncio")
    test = getattr(request.node, "obj", None)
    plain = not inspect.iscoroutinefunction(test) or hasattr(test, "hypothesis")
    options = {"virtual": False} if marker is None or plain else _options(marker)
    # Its own loop but for a marked async test on the virtual twin (a real event loop's Cadence
    # loop is real; Hypothesis's examples each run on a loop of their own).
    if not options["virtual"]:
        with Loop.virtual() as loop:
            yield loop
        return
    made = cadence_asyncio.EventLoopPolicy(**options).new_event_loop()
    request.node.stash[_MADE] = made
    try:
        yield made.cadence  # type: ignore[attr-defined]
    finally:
        made.close()  # the test's run closed it already, unless it never ran


@pytest.fixture
def timeline(virtual_loop: Loop) -> Timeline:
    """A :class:`~cadence.testing.Timeline` recording on ``virtual_loop``."""
    return Timeline(virtual_loop)
