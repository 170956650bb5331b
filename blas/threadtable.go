package blas

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Call is a kind of native call with a one-thread window of its own (see
// hybrid.go): the calls Hybrid brackets and the LAPACK calls lapackx does.
type Call int

// The call kinds, in the order of the calls table.
const (
	CallGemm Call = iota
	CallSymm
	CallSyrk
	CallSyr2k
	CallTrmm
	CallTrsm
	CallGemv
	CallSymv
	CallGer
	CallTrmv // also bounds dtrsv
	CallPotrf
	CallPotri
	CallGetrf
	CallSygst
	CallSyevd // dsyevd and dsyevd's eigenvalues-only run
	CallQR    // dgeqrf, dgelqf, dorgqr, dorglq
	CallGees  // dgees and dtrsyl
	NumCalls
)

// Measure says how a call's size is counted.
type Measure int

const (
	// Cube is m·n·k of a level-3 call (k the inner or triangular order).
	Cube Measure = iota
	// Square is m·n of a level-2 call.
	Square
	// Order is the order n of a LAPACK call (a rectangular one counts as
	// the square one of the same work).
	Order
)

// Size is the size of a square call of order n under m.
func (m Measure) Size(n int) int {
	switch m {
	case Cube:
		return n * n * n
	case Square:
		return n * n
	}
	return n
}

// Point is one order's speed-up of all threads over one (one thread's
// time over all threads'): on a quiet machine and beside busy processes
// (NaN where not measured).
type Point struct {
	N      int     `json:"n"`
	Quiet  float64 `json:"quiet"`
	Loaded float64 `json:"loaded,omitempty"`
}

// calls is the table of call kinds: the name profiles and `rhgd info`
// spell, how a size is counted, and the speed-ups measured on the 2-core
// EPYC (OpenBLAS 0.3.21, Haswell kernels) that the fallback table comes
// from: quiet, and beside two busy processes (medians of 5 to 11 quiet
// and 3 to 11 loaded runs, bench/threads.sh; hybrid.go and lapackx's
// backend_native.go give the method).
var calls = [NumCalls]struct {
	name    string
	measure Measure
	curve   []Point
}{
	CallGemm:  {"gemm", Cube, level3Curve(0.66, 0.01, 1.24, 0.14, 1.61, 0.22, 1.73, 0.40, 1.65, 0.61, 1.78, 0.67, 1.91, 1.05, 1.82, 1.24)},
	CallSymm:  {"symm", Cube, level3Curve(0.85, 0.03, 1.48, 0.12, 1.74, 0.29, 1.67, 0.45, 1.69, 0.59, 1.79, 1.20, 1.84, 1.22, 1.88, 1.48)},
	CallSyrk:  {"syrk", Cube, level3Curve(0.53, 0.02, 1.14, 0.16, 1.36, 0.18, 1.34, 0.25, 1.43, 0.42, 1.40, 0.56, 1.71, 1.06, 1.74, 1.18)},
	CallSyr2k: {"syr2k", Cube, level3Curve(1.27, 0.24, 1.58, 0.36, 1.77, 0.77, 1.89, 1.17, 1.90, 1.38, 1.77, 1.09, 1.99, 1.65, 1.98, 1.26)},
	CallTrmm:  {"trmm", Cube, level3Curve(1.07, 0.02, 1.45, 0.18, 1.71, 0.57, 1.73, 0.84, 1.64, 1.15, 1.85, 1.12, 1.96, 1.10, 1.84, 1.30)},
	CallTrsm:  {"trsm", Cube, level3Curve(1.24, 0.02, 1.60, 0.17, 1.64, 0.46, 1.76, 0.84, 1.48, 0.73, 1.64, 1.17, 1.66, 1.36, 1.67, 1.27)},
	CallGemv:  {"gemv", Square, level2Curve(1.22, 0.01, 1.03, 0.06, 1.59, 0.14, 2.39, 0.22, 2.19, 1.30, 1.92, 1.21)},
	CallSymv:  {"symv", Square, level2Curve(0.94, 0.01, 1.13, 0.03, 0.96, 0.06, 1.60, 0.22, 2.52, 0.52, 1.86, 1.02)},
	CallGer:   {"ger", Square, level2Curve(1.21, 0.01, 1.19, 0.05, 1.61, 0.14, 2.36, 0.95, 1.54, 0.71, 1.77, 1.20)},
	CallTrmv:  {"trmv", Square, level2Curve(0.94, 0.01, 1.01, 0.02, 1.12, 0.06, 1.53, 0.14, 1.99, 0.37, 2.02, 0.91)},
	CallPotrf: {"potrf", Order, lapackCurve(0.48, 0.00, 0.63, 0.47, 1.00, 0.01, 1.23, 0.04, 1.38, 0.08, 1.47, 0.12, 1.65, 0.24)},
	CallPotri: {"potri", Order, lapackCurve(0.53, 0.00, 1.24, 1.07, 1.41, 0.03, 1.41, 0.05, 1.66, 0.13, 1.75, 0.38, 1.77, 0.34)},
	CallGetrf: {"getrf", Order, lapackCurve(0.41, 0.04, 0.74, 0.02, 0.96, 0.06, 1.31, 0.31, 1.58, 0.72, 1.78, 0.78, 1.77, 1.31)},
	CallSygst: {"sygst", Order, lapackCurve(0.32, 0.33, 0.66, 0.71, 0.91, 0.00, 1.18, 0.01, 1.35, 0.03, 1.40, 0.10, 1.54, 0.95)},
	CallSyevd: {"syevd", Order, lapackCurve(0.67, 0.00, 0.81, 0.01, 0.88, 1.03, 1.13, 0.08, 1.17, 0.10, 1.30, 0.20)},
	CallQR:    {"qr", Order, lapackCurve(0.33, 0.01, 0.70, 0.01, 0.76, 0.22, 0.89, 0.34, 1.00, 0.61, 1.09, 1.13)},
	CallGees:  {"gees", Order, lapackCurve(0.87, 0.01, 0.85, 0.08, 0.91, 1.34)},
}

// curve pairs orders with (quiet, loaded) values, as many as given.
func curve(orders []int, ql []float64) []Point {
	pts := make([]Point, len(ql)/2)
	for i := range pts {
		pts[i] = Point{orders[i], ql[2*i], ql[2*i+1]}
	}
	return pts
}

func level3Curve(ql ...float64) []Point {
	return curve([]int{128, 256, 384, 448, 512, 640, 768, 1024}, ql)
}
func level2Curve(ql ...float64) []Point {
	return curve([]int{512, 1024, 1536, 2048, 3072, 4096}, ql)
}
func lapackCurve(ql ...float64) []Point {
	return curve([]int{128, 256, 512, 1024, 1536, 2048, 3072}, ql)
}

// String is the call's name in profiles and `rhgd info`.
func (c Call) String() string {
	if c < 0 || c >= NumCalls {
		return fmt.Sprintf("Call(%d)", int(c))
	}
	return calls[c].name
}

// Measure says how the call's size is counted.
func (c Call) Measure() Measure { return calls[c].measure }

// ParseCall reads a call's name as String spells it.
func ParseCall(s string) (Call, bool) {
	for c := range NumCalls {
		if calls[c].name == s {
			return c, true
		}
	}
	return 0, false
}

// Never is a ThreadsFrom bound that no call reaches.
const Never = math.MaxInt

// Rule says from which order a call runs on all threads: the smallest
// measured order at which, and at every larger one measured, all threads
// are at least MinQuiet times as fast as one on a quiet machine and, where
// a loaded speed-up was measured, at least MinLoaded times as fast beside
// busy processes.
type Rule struct {
	MinQuiet  float64 `json:"min_quiet"`
	MinLoaded float64 `json:"min_loaded"`
}

// DefaultRule is the rule of the fallback table and of `rhgd tune`.
// Threads must win on a quiet machine (1.1×, beyond the measurements'
// noise) and must not lose badly beside busy processes (0.8×), where a
// threaded call waits a time slice for each descheduled thread (a
// threaded dgemm at n = 128 took 10 ms there against 0.1 ms on one
// thread). The loaded bound decides every entry of the 2-core table.
var DefaultRule = Rule{MinQuiet: 1.1, MinLoaded: 0.8}

// Crossover returns the order from which pts (ascending in N) qualify
// under r, or Never. Loaded values of zero or NaN count as not measured.
func (r Rule) Crossover(pts []Point) int {
	from := Never
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		loadedOK := p.Loaded == 0 || math.IsNaN(p.Loaded) || p.Loaded >= r.MinLoaded
		if !(p.Quiet >= r.MinQuiet) || !loadedOK {
			break
		}
		from = p.N
	}
	return from
}

// Table is the set of one-thread windows in use: for each call kind the
// order from which a native call runs on all threads (Never: none does).
type Table struct {
	// From is each call's order; ThreadsFrom converts it to its size.
	From [NumCalls]int
	// Source says where the table comes from, for `rhgd info`.
	Source string
	// Threads is the thread count the table is for.
	Threads int
}

// ThreadsFrom is the size (in c's Measure) from which c runs on all
// threads.
func (t *Table) ThreadsFrom(c Call) int {
	n := t.From[c]
	if n == Never {
		return Never
	}
	return calls[c].measure.Size(n)
}

// table is the table in use: the fallback for the start-up thread count
// until start-up resolves a profile.
var table atomic.Pointer[Table]

func init() { table.Store(fallbackTable(2)) }

// ThreadsFrom returns the size (in c's Measure: m·n·k, m·n or the order)
// from which native calls of kind c run on all threads; below it rhgd
// runs them on one (SerialBegin). It reads the table in use (see
// CurrentTable) and costs one atomic load.
func ThreadsFrom(c Call) int { return table.Load().ThreadsFrom(c) }

// CurrentTable returns a copy of the table in use.
func CurrentTable() Table { return *table.Load() }

// fallbackTable is the table for p threads when no profile applies. For
// p ≤ 2 it is the 2-core EPYC's, by DefaultRule on both columns. For more
// threads it projects the quiet column by Amdahl's law, s_p = 1/(1 − φ +
// φ/p) with φ = 2(1 − 1/s₂) the parallel fraction a 2-thread speed-up s₂
// implies, and drops the loaded bound: that column was measured with
// every core busy (two busy processes on two cores), which a machine with
// more cores than that is assumed not to be. A speed-up below one (φ < 0:
// the threads' overhead) projects to the same loss, one above two to
// p (linear: a superlinear s₂ comes from caches). `rhgd tune` replaces
// both assumptions with measurements.
func fallbackTable(p int) *Table {
	t := &Table{Threads: p}
	if p <= 2 {
		t.Source = "fallback: the 2-core EPYC table (quiet and beside two busy processes); `rhgd tune` measures this machine's"
		for c := range NumCalls {
			t.From[c] = DefaultRule.Crossover(calls[c].curve)
		}
		return t
	}
	t.Source = fmt.Sprintf("fallback: the 2-core EPYC table's quiet column projected to %d threads by Amdahl's law, "+
		"not measured beside busy processes; `rhgd tune` measures this machine's", p)
	for c := range NumCalls {
		pts := make([]Point, len(calls[c].curve))
		for i, q := range calls[c].curve {
			pts[i] = Point{N: q.N, Quiet: amdahl(q.Quiet, p)}
		}
		t.From[c] = DefaultRule.Crossover(pts)
	}
	return t
}

// amdahl projects a 2-thread speed-up s2 to p threads.
func amdahl(s2 float64, p int) float64 {
	if s2 <= 1 {
		return s2
	}
	phi := min(2*(1-1/s2), 1) // a superlinear s₂ (cache effects) projects to linear
	return 1 / (1 - phi + phi/float64(p))
}

// CurrentFallback returns the fallback table for the present thread count:
// what rhgd uses when no profile applies.
func CurrentFallback() Table { return *fallbackTable(Threads()) }

// AllThreads is a table that runs every native call on the library's
// thread count: the one-thread windows off. Benchmarks compare it with
// the table in use to measure what the windows cost.
func AllThreads() Table {
	t := Table{Source: "every call on all threads (the windows off)", Threads: Threads()}
	for c := range NumCalls {
		t.From[c] = 1
	}
	return t
}

// UseTable installs t as the table in use and returns the function that
// restores the previous one. It is for benchmarks and experiments: the
// start-up and SetThreads install the machine's table themselves. Calls
// already running keep the bounds they read.
func UseTable(t Table) (restore func()) {
	old := table.Swap(&t)
	return func() { table.Store(old) }
}
