// Package allocs measures the steady-state allocations of code that hands
// work to goroutines.
package allocs

import "testing"

// Steady returns the fewest allocations per call of f that
// testing.AllocsPerRun(runs, f) measures in three tries. An allocation in
// the code under test shows on every call, so on every try; the Go
// runtime's own, when a goroutine blocks on a channel or a WaitGroup and
// finds its P's and the central sudog caches empty (the central one is
// emptied at each garbage collection), shows only now and then, under
// load, and not on every try.
func Steady(runs int, f func()) float64 {
	least := testing.AllocsPerRun(runs, f)
	for try := 1; try < 3 && least > 0; try++ {
		least = min(least, testing.AllocsPerRun(runs, f))
	}
	return least
}
