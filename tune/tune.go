// Package tune measures where the native library's threads pay off on
// this machine, per call kind and order, quiet and beside busy threads,
// and turns the measurements into the profile that package blas reads
// (blas.Profile, blas.SaveProfile): `rhgd tune` runs it.
//
// Each call of each order runs alternately on one thread and on all of
// them, in rounds, so that drift of the machine falls on both sides; a
// side repeats its call until MinTime has passed. The speed-up of an
// order is the median over the rounds of one thread's time over all
// threads'. The loaded measurements repeat the quiet ones beside Load
// busy threads (spinning goroutines locked to OS threads, which the
// kernel schedules as it would busy processes). blas.DefaultRule turns
// each call's speed-ups into the order from which it runs on all threads.
//
// A speed-up near the rule's bound decides the order on little margin,
// and on a shared machine two runs can differ by more than that margin
// at the same order. So, once a call's orders are measured, each
// speed-up within a factor Near of its bound is measured again, Rounds
// more rounds after the others (a later stretch of the machine's time),
// and its median taken over all its rounds.
package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// Options set what Run measures.
type Options struct {
	// Load is the number of busy threads beside the loaded measurements;
	// 0 measures on a quiet machine only.
	Load int
	// MaxOrder is the largest order measured; each call measures its
	// probe's orders up to it.
	MaxOrder int
	// Rounds is the number of alternations of one thread and all per
	// order, MinTime each side's time per round.
	Rounds  int
	MinTime time.Duration
	// Calls are the call kinds measured (nil: all); the others keep the
	// fallback's order in the profile.
	Calls []blas.Call
	// Progress, if not nil, receives a line per measured order.
	Progress io.Writer
	// measure, if not nil, replaces the timing of one side's ratios (tests).
	measure func(f func(), o Options) []float64
}

// Near is the factor around the rule's bounds within which a speed-up is
// measured again (see the package documentation): 1.25 covers the
// run-to-run spread of this repository's 2-core measurements at most
// orders (bench/results/2026-11-27-tuned).
const Near = 1.25

// Default is what `rhgd tune` runs: beside one busy thread as well as
// quiet, to n = 2048, five rounds of 50 ms a side. Quick is `rhgd tune
// -quick`: to n = 1024, three rounds of 20 ms.
var (
	Default = Options{Load: 1, MaxOrder: 2048, Rounds: 5, MinTime: 50 * time.Millisecond}
	Quick   = Options{Load: 1, MaxOrder: 1024, Rounds: 3, MinTime: 20 * time.Millisecond}
)

// Validate reports options Run cannot honor, naming the field.
func (o Options) Validate() error {
	switch {
	case o.Load < 0:
		return fmt.Errorf("tune: load %d < 0", o.Load)
	case o.MaxOrder < 1:
		return fmt.Errorf("tune: max order %d < 1", o.MaxOrder)
	case o.Rounds < 1:
		return fmt.Errorf("tune: rounds %d < 1", o.Rounds)
	case o.MinTime <= 0:
		return fmt.Errorf("tune: min time %v ≤ 0", o.MinTime)
	}
	return nil
}

// ErrOneThread is Run's error when the library runs on one thread: there
// is nothing to choose.
var ErrOneThread = errors.New("tune: the native library runs on one thread (RHGD_THREADS=1 or one core): nothing to measure")

// Run measures and returns this machine's profile at the present thread
// count (blas.Threads). It returns the measurements so far and ctx's
// error if ctx ends first.
func Run(ctx context.Context, o Options) (blas.Profile, error) {
	if err := o.Validate(); err != nil {
		return blas.Profile{}, err
	}
	if blas.Current() != blas.Native {
		return blas.Profile{}, errors.New("tune: the pure-Go backend has no threads to tune")
	}
	if blas.Threads() < 2 {
		return blas.Profile{}, ErrOneThread
	}
	key := blas.CurrentKey()
	fb := blas.CurrentFallback()
	p := blas.Profile{Key: key, Measured: time.Now().UTC().Format(time.RFC3339), Load: o.Load, Rule: blas.DefaultRule,
		ThreadsFrom: map[string]int{}, Curves: map[string][]blas.Point{}}
	for c := range blas.NumCalls {
		p.ThreadsFrom[c.String()] = orderOut(fb.From[c])
	}
	var probes []blas.Probe
	for _, pr := range slices.Concat(blas.ThreadProbes(), lapackx.ThreadProbes()) {
		if o.Calls == nil || slices.Contains(o.Calls, pr.Call) {
			probes = append(probes, pr)
		}
	}
	for _, pr := range probes {
		pts, err := measureCall(ctx, pr, o)
		if len(pts) > 0 {
			p.Curves[pr.Call.String()] = pts
			p.ThreadsFrom[pr.Call.String()] = orderOut(crossover(pts, fb.From[pr.Call]))
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// crossover is DefaultRule's order for pts, or the fallback's when that
// lies beyond the orders measured and they give none: an order not
// measured is not evidence against threads.
func crossover(pts []blas.Point, fallback int) int {
	from := blas.DefaultRule.Crossover(pts)
	if from == blas.Never && fallback != blas.Never && fallback > pts[len(pts)-1].N {
		return fallback
	}
	return from
}

// orderOut is an order as profiles store it: 0 for Never.
func orderOut(n int) int {
	if n == blas.Never {
		return 0
	}
	return n
}

// measureCall measures pr at its orders up to o.MaxOrder, quiet and, with
// o.Load, beside the load; then measures again the speed-ups near the
// rule's bounds, pooling the rounds.
func measureCall(ctx context.Context, pr blas.Probe, o Options) ([]blas.Point, error) {
	var pts []blas.Point
	var quiet, loaded [][]float64 // each order's ratios
	for _, n := range pr.Orders {
		if n > o.MaxOrder {
			break
		}
		if err := ctx.Err(); err != nil {
			return pts, err
		}
		f := pr.Setup(n)
		q, l := measureSides(f, o, true, o.Load > 0)
		quiet, loaded = append(quiet, q), append(loaded, l)
		pt := blas.Point{N: n, Quiet: median(q), Loaded: median(l)}
		pts = append(pts, pt)
		progress(o, pr.Call, pt, "")
	}
	for i, pt := range pts {
		redoQ, redoL := near(pt.Quiet, blas.DefaultRule.MinQuiet), o.Load > 0 && near(pt.Loaded, blas.DefaultRule.MinLoaded)
		if !redoQ && !redoL {
			continue
		}
		if err := ctx.Err(); err != nil {
			return pts, err
		}
		q, l := measureSides(pr.Setup(pt.N), o, redoQ, redoL)
		if redoQ {
			quiet[i] = append(quiet[i], q...)
			pts[i].Quiet = median(quiet[i])
		}
		if redoL {
			loaded[i] = append(loaded[i], l...)
			pts[i].Loaded = median(loaded[i])
		}
		progress(o, pr.Call, pts[i], fmt.Sprintf(" (near the bound: %d rounds)", max(len(quiet[i]), len(loaded[i]))))
	}
	return pts, nil
}

// measureSides returns f's ratios quiet and beside o.Load busy threads,
// each where asked (nil otherwise).
func measureSides(f func(), o Options, quiet, loaded bool) (q, l []float64) {
	m := o.measure
	if m == nil {
		m = speedups
	}
	if quiet {
		q = m(f, o)
	}
	if loaded {
		stop := busy(o.Load)
		l = m(f, o)
		stop()
	}
	return q, l
}

// near says whether the speed-up s lies within a factor Near of bound.
func near(s, bound float64) bool {
	return s >= bound/Near && s <= bound*Near
}

// progress writes pt's line to o.Progress, if any.
func progress(o Options, c blas.Call, pt blas.Point, note string) {
	if o.Progress == nil {
		return
	}
	fmt.Fprintf(o.Progress, "%-6s n = %4d: all threads %.2f× one quiet", c, pt.N, pt.Quiet)
	if o.Load > 0 {
		fmt.Fprintf(o.Progress, ", %.2f× beside %d busy", pt.Loaded, o.Load)
	}
	fmt.Fprintln(o.Progress, note)
}

// speedups returns o.Rounds ratios of one thread's time per call of f
// over all threads', the sides alternating.
func speedups(f func(), o Options) []float64 {
	f() // warm-up: page faults, the library's buffers
	ratios := make([]float64, o.Rounds)
	for r := range ratios {
		blas.SerialBegin()
		one := timePerCall(f, o.MinTime)
		blas.SerialEnd()
		all := timePerCall(f, o.MinTime)
		ratios[r] = one / all
	}
	return ratios
}

// median returns the median of x (0 for none), leaving x unchanged.
func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(x))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// timePerCall runs f until minTime has passed and returns the time per
// call in seconds.
func timePerCall(f func(), minTime time.Duration) float64 {
	t0, calls := time.Now(), 0
	for {
		f()
		calls++
		if el := time.Since(t0); el >= minTime {
			return el.Seconds() / float64(calls)
		}
	}
}

// busy starts k spinning threads and returns the function that stops
// them. GOMAXPROCS rises meanwhile so that they do not take the Go
// scheduler's processors from the measuring goroutine: they compete for
// the CPUs as busy processes would, through the kernel.
func busy(k int) (stop func()) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + k)
	var done atomic.Bool
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			x := 1.0
			for !done.Load() {
				for i := 0; i < 1000; i++ {
					x = x*1.0000001 + 1e-9
				}
			}
			_ = x
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(prev)
	}
}
