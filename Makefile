# Cadence: the two commands of the README (make demo, make test), make bench and make docs, and
# the steps they are made of.
#   make demo   builds the command-line tool and runs `cadence tour` (the main job)
#   make test   runs every test: Swift (swift test), C (ctest, valgrind, sanitizers) and Python (pytest);
#               each runs the scenario corpus (Tests/Scenarios) and prints how many scenarios passed;
#               and it builds the documentation (make docs) and checks the release artefacts
#               on a machine without the toolchain (make dist-check, about 1.5 minutes)
#   make bench  runs the timer benchmarks: Cadence beside six other timer engines (Benchmarks/run)
#   make docs   builds the DocC catalog with the toolchain's docc, failing on any warning
#   make thirdparty  runs third-party asyncio libraries' own test suites on Cadence's event loops
#               (needs the network: pip downloads their sdists; not part of make test)
#   make dist   builds the release artefacts into dist/ (wheel, sdist, C package); make dist-check
#               installs each where no Swift toolchain can be seen and runs them (docs/RELEASING.md)
# Each installs what is missing first (scripts/install-deps.sh) and does nothing extra otherwise.

# The Python of the tests: a virtual environment that this Makefile owns, which
# scripts/install-deps.sh makes with pytest, pytest-asyncio, hypothesis, ruff and mypy (pip never touches the system's Python);
# PYTHON=... names another interpreter that has them, or a virtual environment to put them in.
VENV   ?= $(BUILD)/venv
PYTHON ?= $(VENV)/bin/python
BUILD  ?= build
# The Swift toolchain's clang and lld, which the sanitizer builds need.
CLANG  ?= $(dir $(shell command -v swiftc))clang

.PHONY: demo test engine-check bench docs thirdparty dist dist-check deps deps-test deps-dist deps-bench swift-test c-build c-test python-test example-swift sanitize clean

demo: deps
	swift build -c release --product cadence
	.build/release/cadence tour

test: deps-test engine-check swift-test c-test python-test example-swift sanitize docs dist-check

deps:
	@scripts/install-deps.sh build

deps-test:
	@VENV=$(VENV) PYTHON=$(PYTHON) scripts/install-deps.sh test

deps-dist:
	@VENV=$(VENV) PYTHON=$(PYTHON) scripts/install-deps.sh dist

deps-bench:
	@scripts/install-deps.sh bench

# The 100,000 sleeping tasks of ManyCancelledSleepsTests fill the shared global executor for
# seconds, which would starve the timing tests running beside them: they run alone, after.
swift-test:
	swift test --skip ManyCancelledSleepsTests
	swift test --filter ManyCancelledSleepsTests

# The DocC documentation of the Swift module (Sources/Cadence/Cadence.docc and every `///`
# comment, private ones included), built with the `docc` beside `swift` (no package plugin is
# needed) and failing on any warning: a broken symbol or article link, an undocumented or unknown
# parameter. About 10 seconds once the package is built; the archive is thrown away unless
# DOCC_OUTPUT names where to keep it (make docs DOCC_OUTPUT=build/Cadence.doccarchive).
docs:
	scripts/check-docc.sh

# No C word of the ABI (raw pointers, C function pointers, userdata, Int32) in Sources/Cadence
# beyond the allow-list in the script, which only shrinks: the C layer is Sources/CCadence.
engine-check:
	python3 scripts/check-engine-c-words.py --counts

# libcadence.so, the C tests and the install check, through CMake and CTest.
c-build:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD)

# CTest shows a test's output only when it fails: the scenario counts are read from its log,
# with the self-check's line (a deliberately wrong scenario, reported as failing as it must).
c-test: c-build
	ctest --test-dir $(BUILD) --output-on-failure
	@grep -h "^scenarios (C[),]" $(BUILD)/Testing/Temporary/LastTest.log

# The Python bindings load $(BUILD)/libcadence.so; the `wheel` tests also build the package
# (pip wheel ., auditwheel repair) and run it in a fresh venv under env -i; ruff and mypy run as tests.
# Then the asyncio tests on every other Python from 3.9 on this machine (scripts/test-pythons.sh).
python-test: deps-test c-build
	$(PYTHON) -m pytest bindings/python/tests
	scripts/test-pythons.sh $(PYTHON) $(BUILD)

# A separate Swift package that depends on this one by path, built and run: a timer's ticks, and a
# program whose main executor is a Cadence loop (its tasks' sleeps are the loop's timers).
example-swift:
	cd examples/swift && swift run Ticker && swift run MainLoop

# The C tests under AddressSanitizer (with LeakSanitizer), and the threaded tests, C and Swift,
# under ThreadSanitizer; the engine itself is built with the same sanitizer each time. (RunMainTests
# runs the MainOnLoop program of the same build, so a race report there changes its output.)
sanitize: deps-test
	cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=$(CLANG) -DCADENCE_SANITIZER=address
	cmake --build $(BUILD)-asan
	ctest --test-dir $(BUILD)-asan --output-on-failure
	cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=$(CLANG) -DCADENCE_SANITIZER=thread
	cmake --build $(BUILD)-tsan
	ctest --test-dir $(BUILD)-tsan --output-on-failure
	swift test --sanitize=thread --scratch-path .build/tsan --filter 'ThreadedCancelTests|LoopThreadTests|LoopClockTests|GridTimerTests|CallbackFunctionTests|VirtualLoopSettleTests|RunMainTests|LoopAdvanceTests|TimelineRecorderClockTests|OperatorTimeline'

# The release artefacts, versioned from include/cadence/version.h, into dist/: the sdist and the
# manylinux wheel built from it (python -m build, auditwheel repair --strip), the C binary tarball
# cadence-VERSION-linux-ARCH.tar.gz and a Debian package of it (cpack). Two Release builds of the
# library: under a minute here, a few on a loaded machine.
dist: deps-dist
	scripts/dist.sh $(PYTHON) $(BUILD)

# Builds dist/ afresh, then installs each artefact where the Swift toolchain cannot be seen (a
# mount namespace with an empty tmpfs over it, env -i): the C quick start against the unpacked
# tarball and Debian package, with pkg-config and with find_package; the package's pytest suite
# against the wheel installed in a fresh virtual environment, and a user's test through its
# pytest plugin; the sdist's contents. About a minute after make dist; make test runs it.
dist-check: dist
	scripts/dist-check.sh $(PYTHON) $(BUILD)

# The timer benchmarks: Cadence beside the peers of Benchmarks/peers (libuv, Foundation, Dispatch,
# asyncio, uvloop, Node), about 7 minutes, tables on stdout. docs/BENCHMARKS.md explains the
# figures; Benchmarks/profile.py counts instructions per operation.
bench: deps-bench c-build
	CADENCE_BUILD_DIR=$(abspath $(BUILD)) Benchmarks/run

# The test suites of async-timeout, tenacity (its asyncio tests), async-lru and anyio (its asyncio
# backend), unchanged, each on asyncio's default loop, cadence.asyncio.EventLoop and
# cadence.asyncio.VirtualEventLoop, with this checkout's package and $(BUILD)/libcadence.so; a
# table of passed/failed counts and wall times at the end. Needs the network the first time: pip
# downloads the pinned sdists and test requirements into venvs under $(BUILD)/thirdparty (kept, so
# later runs take about 2 minutes). THIRDPARTY="anyio tenacity" picks suites.
thirdparty: deps-test c-build
	$(PYTHON) scripts/thirdparty.py --build $(BUILD) $(THIRDPARTY)

clean:
	rm -rf .build $(BUILD) $(BUILD)-asan $(BUILD)-tsan examples/swift/.build
