// Package stagetime times the stages of a kernel as the kernel itself runs
// them, for the benchmark report's stage profiles (bench, `make bench`).
//
// A kernel calls Mark at the end of each stage; Mark is a no-op (one atomic
// load) unless a Clock is in use, so the marks stay in the production code
// path and the profile times exactly what users run. Only one Clock is in
// use at a time and Mark does not lock: time one call at a time, with no
// other goroutine running a marked kernel meanwhile.
package stagetime

import (
	"sync/atomic"
	"time"
)

// Clock accumulates the time of each named stage over the calls it times.
// The zero value is ready to use.
type Clock struct {
	last  time.Time
	calls int
	names []string
	total []time.Duration
	count []int
}

// Stage is one stage's mean time per call.
type Stage struct {
	Name string
	// Seconds is the stage's mean time per call, and PerCall how many
	// times per call it was marked (a stage that repeats, such as a
	// squaring, adds up).
	Seconds float64
	PerCall float64
}

var active atomic.Pointer[Clock]

// Use makes c the clock that Mark advances and starts a call on it: the
// time to the first Mark is that mark's stage. The returned function stops
// it. Calls do not nest.
func Use(c *Clock) (stop func()) {
	c.calls++
	c.last = time.Now()
	active.Store(c)
	return func() { active.Store(nil) }
}

// Count starts a call on c without making it the clock that Mark
// advances: for callers that Add every stage themselves, so that the marks
// of kernels inside their stages do not count.
func (c *Clock) Count() { c.calls++ }

// Mark ends the stage named stage: the time since the last mark (or since
// Use) is added to it. It does nothing when no clock is in use. stage
// should be a constant; it is compared, not copied.
func Mark(stage string) {
	if c := active.Load(); c != nil {
		c.mark(stage)
	}
}

func (c *Clock) mark(stage string) {
	now := time.Now()
	d := now.Sub(c.last)
	c.last = now
	c.Add(stage, d)
}

// Add adds d to the stage named stage of the current call: for stages
// that a caller times itself, such as differences of two timed calls.
func (c *Clock) Add(stage string, d time.Duration) {
	for i, n := range c.names {
		if n == stage {
			c.total[i] += d
			c.count[i]++
			return
		}
	}
	c.names = append(c.names, stage)
	c.total = append(c.total, d)
	c.count = append(c.count, 1)
}

// Reset forgets every call timed so far (a warm-up's, for one).
func (c *Clock) Reset() {
	c.calls = 0
	c.names, c.total, c.count = c.names[:0], c.total[:0], c.count[:0]
}

// Calls is the number of calls timed since the last Reset.
func (c *Clock) Calls() int { return c.calls }

// Stages returns each stage's mean per call, in the order the stages were
// first marked (nil before any call).
func (c *Clock) Stages() []Stage {
	if c.calls == 0 {
		return nil
	}
	k := float64(c.calls)
	out := make([]Stage, len(c.names))
	for i, n := range c.names {
		out[i] = Stage{Name: n, Seconds: c.total[i].Seconds() / k, PerCall: float64(c.count[i]) / k}
	}
	return out
}
