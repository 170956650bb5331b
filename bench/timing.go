package bench

import (
	"math"
	"slices"
	"time"
)

// Timing is how long each side of a case is run.
type Timing struct {
	// Rounds is the number of alternating rounds; each side is timed once
	// per round.
	Rounds int
	// MinTime is the least time one side's measurement lasts: the call is
	// repeated until it is reached, and the mean per call recorded.
	MinTime time.Duration
	// Budget bounds a case's total time: rounds stop once it is spent and
	// at least MinRounds are done.
	Budget    time.Duration
	MinRounds int
}

// measure calls run repeatedly until minTime has passed (at least once)
// and returns the mean seconds per call.
func measure(run func() error, minTime time.Duration) (float64, error) {
	start := time.Now()
	calls := 0
	for {
		if err := run(); err != nil {
			return 0, err
		}
		calls++
		if el := time.Since(start); el >= minTime {
			return el.Seconds() / float64(calls), nil
		}
	}
}

// median returns the median of v (NaN for none), without changing v.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fitExponent returns the least-squares slope α of log t = α log n + c,
// the exponent of t ∝ n^α, and NaN for fewer than two distinct sizes.
func fitExponent(n, t []float64) float64 {
	var sx, sy, sxx, sxy, k float64
	for i := range n {
		if !(n[i] > 0 && t[i] > 0) {
			continue
		}
		x, y := math.Log(n[i]), math.Log(t[i])
		sx, sy, sxx, sxy, k = sx+x, sy+y, sxx+x*x, sxy+x*y, k+1
	}
	den := k*sxx - sx*sx
	if k < 2 || !(den > 1e-12*k*sxx) {
		return math.NaN()
	}
	return (k*sxy - sx*sy) / den
}
