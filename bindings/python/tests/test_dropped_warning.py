"""A handle collected while its work was still going warns (ResourceWarning), naming its kind,
with the handle as the warning's source (tracemalloc then shows where it was made); nothing that
stopped nothing warns. The suite runs with warnings as errors, which a warning raised in a
finalizer (reported as "Exception ignored") must still turn into a failure."""

from __future__ import annotations

import gc
import linecache
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import pytest

import cadence

KINDS: dict[str, Callable[[cadence.Loop], Any]] = {
    "ScheduledTimer (repeating)": lambda loop: loop.schedule(1.0, print, interval=1.0),
    "Subscription": lambda loop: loop.publish(0.1).autoconnect().subscribe(print),
    "Connection": lambda loop: loop.publish(1.0).connect(),
    "Countdown": lambda loop: loop.countdown(loop.now() + 5, 1.0, print),
    "Poller": lambda loop: loop.poller(1.0, print),
}


@pytest.mark.parametrize("kind", KINDS)
def test_an_active_handle_collected_warns_naming_its_kind(
    virtual_loop: cadence.Loop, kind: str
) -> None:
    with pytest.warns(ResourceWarning) as caught:
        KINDS[kind](virtual_loop)  # the handle is given up at once
    [warning] = caught.list
    assert str(warning.message).startswith(f"cadence.{kind} ")
    assert "was still active when it was collected, which stopped it" in str(warning.message)
    assert type(warning.source).__name__ == kind.split()[0]
    assert virtual_loop.armed_timer_count == 0


def test_with_tracemalloc_the_warning_shows_where_the_handle_was_made(
    virtual_loop: cadence.Loop,
) -> None:
    """The warnings module prints the traceback tracemalloc keeps for the warning's source
    ("Object allocated at"): the line that made the handle."""
    tracemalloc.start(5)
    try:
        with pytest.warns(ResourceWarning) as caught:
            virtual_loop.schedule(1.0, print, interval=1.0)  # made here
        made = tracemalloc.get_object_traceback(caught[0].source)
    finally:
        tracemalloc.stop()
    assert made is not None
    assert any(
        frame.filename == __file__ and "# made here" in linecache.getline(__file__, frame.lineno)
        for frame in made
    )


def test_nothing_warns_when_the_give_up_stops_nothing(virtual_loop: cadence.Loop) -> None:
    # filterwarnings = error: a warning here would fail the test.
    virtual_loop.schedule(1.0, print)  # a one-shot is fire-and-forget
    virtual_loop.schedule(1.0, print, interval=1.0).cancel()
    virtual_loop.schedule(1.0, print, interval=1.0).detach()
    with virtual_loop.poller(1.0, print):
        pass
    publisher = virtual_loop.publish(1.0)
    first, second = publisher.connect(), publisher.connect()
    del first  # the same connection is still held
    gc.collect()
    countdown = virtual_loop.countdown(virtual_loop.now() + 1, 1.0, print)
    virtual_loop.run(2.0)
    assert countdown.finished
    del countdown  # finished: nothing to stop
    second.cancel()
    del second
    gc.collect()
    assert virtual_loop.armed_timer_count == 1  # the detached timer


def test_an_unexpected_warning_in_a_finalizer_fails_the_test(tmp_path: Path) -> None:
    """The suite's own settings (pyproject.toml), on a test that drops an active subscription
    without saying so: the warning, raised in a finalizer, still fails it."""
    root = Path(__file__).resolve().parents[3]
    test = tmp_path / "test_drop.py"
    test.write_text(
        "import cadence\n\n"
        "def test_drop():\n"
        "    with cadence.Loop.virtual() as loop:\n"
        "        loop.publish(0.1).autoconnect().subscribe(print)\n"
    )
    config = ["-c", str(root / "pyproject.toml"), "--rootdir", str(root), "-p", "no:cacheprovider"]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *config, str(test)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "ResourceWarning: cadence.Subscription" in result.stdout
    assert "1 failed" in result.stdout
