package tune

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// BenchmarkThreadProbes times each call `rhgd tune` measures (the probes
// of blas and lapackx: the calls with one-thread windows, at the orders
// and on the inputs tune uses) on one OpenBLAS thread (threads=one,
// blas.SerialBegin around the loop) and on all of them (threads=all), as
// sub-benchmarks op=<call>/threads=one|all/n=<order>. bench/threads.sh
// calls runs it on a quiet machine and beside two busy processes, with go
// test's repetitions in place of tune's alternating rounds. A probe's
// inputs are made on first use, so that a -bench pattern that picks a few
// orders skips the others' set-up (seconds at n = 3072).
func BenchmarkThreadProbes(b *testing.B) {
	if blas.Current() != blas.Native { // also starts the backend: else SerialBegin does nothing
		b.Skip("pure-Go backend: no threads")
	}
	for _, pr := range slices.Concat(blas.ThreadProbes(), lapackx.ThreadProbes()) {
		for _, n := range pr.Orders {
			var f func()
			for _, one := range []bool{true, false} {
				tag := "all"
				if one {
					tag = "one"
				}
				b.Run(fmt.Sprintf("op=%s/threads=%s/n=%d", pr.Call, tag, n), func(b *testing.B) {
					if f == nil {
						f = pr.Setup(n)
					}
					if one {
						blas.SerialBegin()
						defer blas.SerialEnd()
					}
					for b.Loop() {
						f()
					}
				})
			}
		}
	}
}
