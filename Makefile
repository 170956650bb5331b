# rhgd: see README.md. `make demo` runs the main job, `make test` the tests.
GO   ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all demo test deps vet test-cgo test-nocgo test-purego test-race fuzz bench bench-crossover info refdata clean

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

# vet checks formatting and runs go vet in all three build configurations.
vet: deps
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet ./...
	$(GO) vet -tags purego ./...

# test runs the whole suite against OpenBLAS/LAPACKE (cgo), then pure Go
# (CGO_ENABLED=0), then pure Go with cgo on (-tags purego), then the solver
# and manifold packages under the race detector. Each run includes the fuzz
# targets' seed corpora (f.Add and testdata/fuzz).
test: vet test-cgo test-nocgo test-purego test-race

test-cgo: deps
	$(GO) test -count=1 ./...

test-nocgo:
	CGO_ENABLED=0 $(GO) test -count=1 ./...

test-purego: deps
	$(GO) test -count=1 -tags purego ./...

RACE_PKGS = ./solver ./spd ./stiefel ./coupling ./euclid ./product ./problems/... ./numerr

test-race: deps
	$(GO) test -count=1 -race $(RACE_PKGS)

# fuzz runs every fuzz target for FUZZ_EXECS executions (a count, not a
# duration: Go 1.26's -fuzztime=<duration> can fail with "context deadline
# exceeded" at the end, go.dev/issue/75804) on the native backend and then
# on the pure-Go one. New failing inputs land in the package's
# testdata/fuzz, which `make test` then runs.
FUZZ_EXECS ?= 1000000
FUZZ_TARGETS = ./lapackx:FuzzSymFunc ./lapackx:FuzzExpm ./lapackx:FuzzSylvester ./lapackx:FuzzLyapSym \
	./spd:FuzzRetract ./stiefel:FuzzRetract ./coupling:FuzzRetract ./problems/synthetic:FuzzEpoch

fuzz: deps
	@log=$$(mktemp); for backend in openblas gonum; do for t in $(FUZZ_TARGETS); do \
		echo "== $$backend $$t"; \
		if ! RHGD_BLAS=$$backend $(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZ_EXECS)x "$${t%%:*}" > $$log 2>&1; then \
			cat $$log; rm -f $$log; exit 1; fi; \
		grep 'execs:' $$log | tail -n 1; \
	done; done; rm -f $$log

# bench runs every benchmark ten times for benchstat; RHGD_BLAS=gonum for
# the pure-Go backend.
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -count 10 ./... | tee bench.txt

bench-crossover: deps
	$(GO) test -run '^$$' -bench 'HybridCrossover|EigThreads' -count 5 ./blas ./lapackx

# refdata regenerates the high-precision reference matrices (needs Debian's
# python3-mpmath and python3-scipy; not run by CI).
refdata:
	/usr/bin/python3 lapackx/testdata/gen_reference.py

clean:
	rm -rf build bench.txt
