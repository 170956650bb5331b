// Package race tells tests whether the race detector is on: it allocates
// on its own, so the allocation-count tests skip under -race.
package race
