# rhgd: see README.md. `make demo` runs the main job, `make test` the tests.
GO   ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all demo test deps tune vet test-cgo test-coretypes test-nocgo test-purego test-race fuzz bench bench-quick bench-deps bench-go bench-crossover info refdata clean \
	lib header-check test-lib test-c test-install install uninstall test-python test-python-purego python-deps valgrind wheel suite suite-quick

all: test

# deps installs what the cgo build links (Debian's OpenBLAS and LAPACKE)
# when a test program cannot compile and link against them.
deps:
	@command -v gcc >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gcc libc6-dev; }
	@if ! printf '#include <lapacke.h>\n#include <cblas.h>\nint main(void){return 0;}\n' | \
		gcc -x c - -o /dev/null -llapacke -lopenblas 2>/dev/null; then \
		echo "make: installing libopenblas-dev liblapacke-dev"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libopenblas-dev liblapacke-dev; \
	fi

demo: deps
	$(GO) run ./cmd/rhgd compare synthetic -out out/synthetic

info: deps
	$(GO) run ./cmd/rhgd info

# tune measures where OpenBLAS's threads pay off on this machine and saves
# the profile rhgd uses from then on (README, Threads); TUNE_FLAGS are
# rhgd tune's (-quick, -load 0, ...).
tune: deps
	$(GO) run ./cmd/rhgd tune $(TUNE_FLAGS)

# vet checks formatting and runs go vet on everything, and on the backend
# packages (the only ones with build-tagged files) in the other two build
# configurations.
vet: deps
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet $(PUREGO_PKGS)
	$(GO) vet -tags purego $(PUREGO_PKGS)

# test runs every stage below, in order, even after one has failed, then
# prints each stage's result and time and fails if any failed:
#   vet             gofmt, and go vet in the three build configurations
#   test-cgo        the whole suite against OpenBLAS/LAPACKE (cgo)
#   test-coretypes  the kernel-sensitive packages under every OpenBLAS
#                   kernel set this CPU executes (OPENBLAS_CORETYPE)
#   test-nocgo      the whole suite in pure Go (CGO_ENABLED=0)
#   test-purego     the backend packages in pure Go with cgo on (-tags purego)
#   test-race       the packages that run goroutines, race detector
#   test-lib        the C library: header check, C example, threads, Python
#                   (against the native library and a pure-Go build of it)
#   bench-quick     the benchmark harness once at small sizes
#   suite-quick     the suite (problems × methods) in its small configuration
# Each Go run includes the fuzz targets' seed corpora (f.Add and
# testdata/fuzz).
TEST_STAGES = vet test-cgo test-coretypes test-nocgo test-purego test-race test-lib bench-quick suite-quick

test: deps
	@mkdir -p build; : > build/test-stages.txt; \
	for s in $(TEST_STAGES); do \
		t0=$$(date +%s); \
		if $(MAKE) --no-print-directory $$s; then r=ok; else r=FAILED; fi; \
		printf '%-15s %-7s %4d s\n' $$s $$r $$(( $$(date +%s) - t0 )) >> build/test-stages.txt; \
	done; \
	echo; echo "make test:"; cat build/test-stages.txt; \
	! grep -q FAILED build/test-stages.txt

test-cgo: deps
	$(GO) test -count=1 ./...

test-nocgo:
	CGO_ENABLED=0 $(GO) test -count=1 ./...

# test-purego: the purego tag changes only the packages with
# backend-specific files (blas, lapackx, and cbindings, which needs cgo);
# every package above them runs the pure-Go backend in test-nocgo already.
PUREGO_PKGS = ./blas/... ./lapackx/... ./cbindings/...

test-purego: deps
	$(GO) test -count=1 -tags purego $(PUREGO_PKGS)

# test-race: the packages that run goroutines (blas's parallel Go GEMM,
# spectral's batched eigensolves, concurrent solver runs in
# problems/synthetic's tests, the C ABI's handles) and the solver. The
# manifold and other problem packages start none of their own.
RACE_PKGS = ./blas ./spectral ./solver ./problems/synthetic ./cbindings

test-race: deps
	$(GO) test -count=1 -race $(RACE_PKGS)

# test-coretypes runs the packages whose results depend on the BLAS
# kernels' rounding under each OpenBLAS kernel set the CPU executes (`rhgd
# info -cores`; rhgd keeps the one OPENBLAS_CORETYPE names), so that a test
# that holds only for the developer's kernels fails on the developer's
# machine and not on a user's. A kernel set this OpenBLAS does not know is
# skipped with a message, and so is the one rhgd selects by default, which
# test-cgo ran.
CORE_PKGS = lapackx spd stiefel grassmann coupling spectral problems/synthetic

test-coretypes: deps
	@mkdir -p build && $(GO) build -o build/rhgd ./cmd/rhgd
	@GO=$(GO) sh blas/testdata/coretypes.sh build/rhgd $(CORE_PKGS)

# lib builds the C ABI (cbindings/): build/librhgd.so and build/librhgd.a,
# with the hand-written header copied to build/rhgd.h. The headers cgo
# writes next to the libraries are removed: cbindings/rhgd.h is the
# contract.
lib: deps
	@mkdir -p build
	$(GO) build -buildmode=c-shared -o build/librhgd.so ./cbindings
	$(GO) build -buildmode=c-archive -o build/librhgd.a ./cbindings
	rm -f build/librhgd.h
	cp cbindings/rhgd.h build/rhgd.h

# header-check fails when the functions the libraries export and the
# prototypes of cbindings/rhgd.h drift apart.
header-check: lib
	$(GO) run ./cbindings/internal/headercheck build/librhgd.so cbindings/rhgd.h
	$(GO) run ./cbindings/internal/headercheck build/librhgd.a cbindings/rhgd.h

# test-lib tests the library from outside Go: the C example (shared and
# static), the threads test, the README's C build lines and make install,
# the Python package and the Dask sweep.
test-lib: header-check test-c test-install test-python test-python-purego

CFLAGS_C = -O2 -Wall -Wextra -Werror -std=c11 -D_DEFAULT_SOURCE -I cbindings
LDLIBS_STATIC = -llapacke -lopenblas -lpthread -lm

# test-c builds and runs examples/c against both libraries and the threads
# test (cbindings/testdata/threads_main.c): 8 pthreads on independent
# handles with one OpenBLAS thread each (concurrent callers that each use
# OpenBLAS's thread pool spin against one another), then 2 pthreads with
# OpenBLAS's default thread count. abi_growth
# (cbindings/testdata/abi_growth.c) is the proof that the ABI can grow: a
# program built with the first layouts of rhgd.h's size-prefixed structs
# and the history's first 11 columns runs unchanged against the library.
test-c: lib
	$(CC) $(CFLAGS_C) examples/c/example.c -o build/example -Lbuild -lrhgd -Wl,-rpath,'$$ORIGIN' -lm
	$(CC) $(CFLAGS_C) examples/c/example.c -o build/example-static build/librhgd.a $(LDLIBS_STATIC)
	$(CC) $(CFLAGS_C) cbindings/testdata/threads_main.c -o build/threads -Lbuild -lrhgd -Wl,-rpath,'$$ORIGIN' -lpthread -lm
	$(CC) $(CFLAGS_C) cbindings/testdata/abi_growth.c -o build/abi_growth -Lbuild -lrhgd -Wl,-rpath,'$$ORIGIN' -lm
	build/example
	build/abi_growth
	build/example-static > /dev/null
	RHGD_THREADS=1 build/threads 8 4
	build/threads 2 2

# install copies the libraries, the header and a pkg-config file rhgd.pc
# under PREFIX (DESTDIR in front for staged installs), so that
# `cc prog.c $(pkg-config --cflags --libs rhgd)` builds a program that runs
# without LD_LIBRARY_PATH: rhgd.pc's Libs carry an rpath to LIBDIR.
# pkg-config searches /usr/local/lib/pkgconfig; for another PREFIX, set
# PKG_CONFIG_PATH=$(PREFIX)/lib/pkgconfig. The version is VERSION's (the one
# place it is written; cbindings' TestVersionOnePlace checks the copies).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
LIB_VERSION = $(shell cat VERSION)

install: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 build/librhgd.so $(DESTDIR)$(LIBDIR)/librhgd.so
	install -m 644 build/librhgd.a $(DESTDIR)$(LIBDIR)/librhgd.a
	install -m 644 cbindings/rhgd.h $(DESTDIR)$(INCLUDEDIR)/rhgd.h
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(LIB_VERSION)|' \
		cbindings/rhgd.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/rhgd.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/librhgd.so $(DESTDIR)$(LIBDIR)/librhgd.a $(DESTDIR)$(INCLUDEDIR)/rhgd.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/rhgd.pc

# test-install runs the C build lines of README.md and of examples/c's
# header exactly as written (cbindings/testdata/install_test.sh): in a
# stand-in for the repository, with make install into a temporary PREFIX,
# each binary run from another directory without LD_LIBRARY_PATH. Then the
# Python installs (python/tests/test_install.py): pip install ./python
# leaves git nothing untracked, and the wheel installs with pip into a
# fresh `python3 -m venv --system-site-packages` in a temporary directory
# and, from outside the repository without RHGD_LIBRARY, solves a built-in
# problem and a PyTorch one.
test-install: lib wheel python-deps
	@command -v pkg-config >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq pkg-config; }
	sh cbindings/testdata/install_test.sh
	RHGD_WHEEL=$(CURDIR)/$(WHEEL) $(PYTHON) -m pytest -q -rs -p no:cacheprovider python/tests/test_install.py

# wheel builds $(WHEEL): the Python package with build/librhgd.so inside,
# from a copy of python/ in build/wheel-src (python/ stays clean), with
# Debian's pip, setuptools and wheel and no network. The package itself is
# pure Python; the library makes the wheel Linux and x86_64-only, which
# the tag says (setup.cfg's bdist_wheel plat_name). Its version is
# VERSION's, read from rhgd.__version__ (TestVersionOnePlace checks the
# two agree); the wheel's name is checked here.
WHEEL_PLAT = linux_$(shell uname -m)
WHEEL = build/rhgd-$(LIB_VERSION)-py3-none-$(WHEEL_PLAT).whl

wheel: lib python-deps
	rm -rf build/wheel-src build/rhgd-*.whl
	mkdir -p build/wheel-src
	cp -r python/pyproject.toml python/README.md python/rhgd build/wheel-src/
	rm -rf build/wheel-src/rhgd/__pycache__
	cp build/librhgd.so build/wheel-src/rhgd/librhgd.so
	printf '[bdist_wheel]\npython_tag = py3\nplat_name = $(WHEEL_PLAT)\n' > build/wheel-src/setup.cfg
	$(PYTHON) -m pip wheel -q --no-deps --no-build-isolation --no-index -w build build/wheel-src
	@test -f $(WHEEL) || { echo "make wheel: $(WHEEL) was not built; got:"; ls build/*.whl; exit 1; }
	@rm -rf build/wheel-src
	@echo "make wheel: $(WHEEL)"

# The Python tests run with Debian's Python (not the first python3 on
# PATH) and its python3-numpy, python3-scipy and python3-pytest, and
# python3-pip with python3-setuptools and python3-wheel (make wheel, and a
# test runs pip install ./python offline) and python3-venv (the wheel's
# test venv), installed when missing. python3-distributed (Dask, and the
# dask command) is installed too when it can be; without it the Dask sweep
# tests (a LocalCluster, and real dask scheduler and worker processes with
# a worker killed mid-task) are skipped with a message, and the rest runs.
# So is python3-torch
# (Debian's PyTorch, 1.13 on bookworm): without it rhgd.torch's tests and
# examples (tests/test_torch.py) are skipped with a message; and so are
# python3-matplotlib (rhgd.plot), python3-tqdm (progress=True's bar) and
# python3-mpmath (tests/test_torch_symfn.py's 50-digit references).
PYTHON = /usr/bin/python3

python-deps:
	@if ! $(PYTHON) -c 'import setuptools, wheel, pip, numpy, scipy, pytest, venv, ensurepip' 2>/dev/null; then \
		echo "make: installing python3-numpy python3-scipy python3-pytest python3-pip python3-setuptools python3-wheel python3-venv"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-numpy python3-scipy python3-pytest \
			python3-pip python3-setuptools python3-wheel python3-venv; \
	fi
	@if ! $(PYTHON) -c 'import distributed' 2>/dev/null || ! command -v dask >/dev/null; then \
		echo "make: installing python3-distributed"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-distributed; } || \
		echo "make: python3-distributed could not be installed: the Dask sweep tests will be skipped"; \
	fi
	@if ! $(PYTHON) -c 'import torch' 2>/dev/null; then \
		echo "make: installing python3-torch"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-torch; } || \
		echo "make: python3-torch could not be installed: the rhgd.torch tests and examples will be skipped"; \
	fi
	@if ! $(PYTHON) -c 'import matplotlib, tqdm, mpmath' 2>/dev/null; then \
		echo "make: installing python3-matplotlib python3-tqdm python3-mpmath"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-matplotlib python3-tqdm python3-mpmath; } || \
		echo "make: python3-matplotlib, python3-tqdm or python3-mpmath could not be installed: the rhgd.plot, tqdm progress and rhgd.torch matrix-function reference tests will be skipped"; \
	fi

# test-python runs the Python package's tests (python/tests) against
# build/librhgd.so, the Dask LocalCluster sweep and rhgd.torch's tests and
# examples among them; the install tests (test_install.py) run in
# test-install, against the wheel.
test-python: lib python-deps
	RHGD_LIBRARY=$(CURDIR)/build/librhgd.so PYTHONPATH=$(CURDIR)/python $(PYTHON) -m pytest -q -rs -p no:cacheprovider \
		--ignore=python/tests/test_install.py python/tests

# test-python-purego runs them again against the library built on the
# pure-Go backend (-tags purego: gonum's BLAS and LAPACK, rhgd's own
# kernels in Go), build/purego/librhgd.so, so that the Python and torch
# front ends are checked on both backends; the tests of OpenBLAS's
# threads and rhgd's thread table skip there with their reason.
test-python-purego: deps python-deps
	@mkdir -p build/purego
	$(GO) build -tags purego -buildmode=c-shared -o build/purego/librhgd.so ./cbindings
	rm -f build/purego/librhgd.h
	RHGD_LIBRARY=$(CURDIR)/build/purego/librhgd.so PYTHONPATH=$(CURDIR)/python $(PYTHON) -m pytest -q -rs -p no:cacheprovider \
		--ignore=python/tests/test_install.py python/tests

# valgrind runs the C example and abi_growth under valgrind's memcheck: no invalid reads
# or writes and no definite leaks. The suppressions cover errors whose
# innermost frame is the Go runtime's (its stack copying reads slots
# valgrind never saw written; cbindings/testdata/valgrind.supp);
# asynchronous preemption, whose signal handler writes below the stack
# pointer of goroutine stacks valgrind does not know, is turned off. The
# threads test is not run here: on threads a C program creates, Go code
# runs on goroutine stacks that valgrind's stack-switch heuristic takes for
# freed memory, and reports every access to them.
VALGRIND = GODEBUG=asyncpreemptoff=1 valgrind -q --error-exitcode=1 --leak-check=full \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=cbindings/testdata/valgrind.supp

valgrind: test-c
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	$(VALGRIND) build/example
	$(VALGRIND) build/abi_growth

# fuzz runs every fuzz target for FUZZ_EXECS executions (a count, not a
# duration: Go 1.26's -fuzztime=<duration> can fail with "context deadline
# exceeded" at the end, go.dev/issue/75804) on the native backend and then
# on the pure-Go one. New failing inputs land in the package's
# testdata/fuzz, which `make test` then runs.
FUZZ_EXECS ?= 1000000
FUZZ_TARGETS = ./lapackx:FuzzSymFunc ./lapackx:FuzzExpm ./lapackx:FuzzSylvester ./lapackx:FuzzLyapSym \
	./spd:FuzzRetract ./stiefel:FuzzRetract ./coupling:FuzzRetract ./problems/synthetic:FuzzEpoch ./problems:FuzzNPZ

fuzz: deps
	@log=$$(mktemp); for backend in openblas gonum; do for t in $(FUZZ_TARGETS); do \
		echo "== $$backend $$t"; \
		if ! RHGD_BLAS=$$backend $(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZ_EXECS)x "$${t%%:*}" > $$log 2>&1; then \
			cat $$log; rm -f $$log; exit 1; fi; \
		grep 'execs:' $$log | tail -n 1; \
	done; done; rm -f $$log

# bench runs the benchmark harness (bench/, go run ./bench/cmd/report):
# rhgd's kernels at large sizes beside numpy, scipy, POT and PyTorch on the
# same inputs, all on the same thread count, and writes a dated Markdown
# report with tables, targets and scaling plots under bench/results/.
# bench-quick runs every case and peer once at small sizes (`make test`
# runs it, so the harness never rots); its report goes to build/. Both
# also run bench/torch_problems.py on the shared library (rhgd.torch on a
# user's own problems: its rows join the targets table).
bench: deps bench-deps lib
	$(GO) run ./bench/cmd/report -out bench/results

bench-quick: deps bench-deps lib
	$(GO) run ./bench/cmd/report -quick -out build/bench-quick
	$(GO) test -run '^$$' -bench . -benchtime 1x -short ./bench > /dev/null

# suite runs every problem of the suite (the built-in ones at their paper
# sizes, benchopt's quadratic of bench/bilevel_quadratic.py, a Grassmann
# and a simplex problem with known solutions) × every method (rhgd's
# estimators and presets, AdaRHD ported to rhgd's Python API, the numpy
# ports of benchopt's SOBA, SABA and F2SA, and any outside method given by
# SUITE_FLAGS="--method file.py:function"), each measured by the true
# hypergradient outside the method, and writes a dated report with tables
# and plots to build/suite/<date>-full (bench/suite; README's "The suite").
# It is Python (python3 -m suite) because its plug point is: an outside
# method is a Python generator. SUITE_FLAGS="--workers 2" runs it on a
# Dask LocalCluster, "--scheduler tcp://host:8786" on a running cluster.
# suite-quick runs its small configuration and checks it (part of make
# test).
SUITE_ENV = RHGD_LIBRARY=$(CURDIR)/build/librhgd.so PYTHONPATH=$(CURDIR)/python:$(CURDIR)/bench

suite: lib python-deps
	$(SUITE_ENV) $(PYTHON) -m suite --config full $(SUITE_FLAGS)

suite-quick: lib python-deps
	$(SUITE_ENV) $(PYTHON) -m pytest -q -rs -p no:cacheprovider bench/suite/test_suite.py

# bench-deps installs the peers' Python libraries: Debian's numpy, scipy,
# POT, PyTorch and threadpoolctl (which reports numpy's BLAS).
bench-deps:
	@if ! $(PYTHON) -c 'import numpy, scipy, ot, torch, threadpoolctl' 2>/dev/null; then \
		echo "make: installing python3-numpy python3-scipy python3-pot python3-torch python3-threadpoolctl"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-numpy python3-scipy \
			python3-pot python3-torch python3-threadpoolctl; \
	fi

# bench-go runs every Go benchmark ten times for benchstat; RHGD_BLAS=gonum
# for the pure-Go backend.
bench-go: deps
	$(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt

bench-crossover: deps
	$(GO) test -run '^$$' -bench 'HybridCrossover|EigThreads' -count 5 ./blas ./lapackx

# refdata regenerates the high-precision reference matrices (needs Debian's
# python3-mpmath and python3-scipy; not run by CI). The conditioning sweep
# (reference_sweep.json) takes about 20 minutes on two cores.
refdata:
	/usr/bin/python3 lapackx/testdata/gen_reference.py
	/usr/bin/python3 lapackx/testdata/gen_reference.py --sweep

clean:
	rm -rf build bench.txt python/build python/rhgd.egg-info
