package lapackx

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// interleave runs each of fns once per iteration, in turn, and reports
// each one's median time as name-ms and, for i > 0, the median over
// iterations of its time over fns[0]'s in the same iteration as
// name/name0: on a shared, noisy machine the load moves both sides of an
// iteration alike, where one-after-the-other runs compare different loads.
func interleave(b *testing.B, names []string, fns ...func() error) {
	ts, rs := make([][]float64, len(fns)), make([][]float64, len(fns))
	for b.Loop() {
		var t0 float64
		for i, fn := range fns {
			start := time.Now()
			if err := fn(); err != nil {
				b.Fatal(err)
			}
			el := time.Since(start).Seconds()
			if i == 0 {
				t0 = el
			}
			ts[i] = append(ts[i], el)
			rs[i] = append(rs[i], el/t0)
		}
	}
	for i, name := range names {
		slices.Sort(ts[i])
		b.ReportMetric(ts[i][len(ts[i])/2]*1e3, name+"-ms")
		if i > 0 {
			slices.Sort(rs[i])
			b.ReportMetric(rs[i][len(rs[i])/2], name+"/"+names[0])
		}
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkLyapSolveMany solves A X_i + X_i A = C_i for k right-hand sides
// with one eigendecomposition (many, SolveMany) and by k Solve calls
// (separate), which factorize A each time, interleaved: separate/many is
// SolveMany's speed-up.
//
//	go test -run '^$' -bench LyapSolveMany -benchtime 20x ./lapackx
//
// On the shared 2-core EPYC beside other work (2026-11-27, load average
// 4-6; three runs, 20 iterations at n = 200, 3 at 1000), separate/many:
// n = 200 0.99-1.02 (k = 1), 2.09-2.14 (k = 4), 2.82-2.99 (k = 16);
// n = 1000 0.94-1.00, 1.78-2.08, 1.58-2.31.
func BenchmarkLyapSolveMany(b *testing.B) {
	for _, n := range []int{200, 1000} {
		a := benchSPD(n)
		l := NewLyapSym(n)
		for _, k := range []int{1, 4, 16} {
			c, dst := make([][]float64, k), make([][]float64, k)
			for i := range c {
				c[i], dst[i] = randSym(newRand(uint64(10+i)), n, 1), make([]float64, n*n)
			}
			b.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(b *testing.B) {
				interleave(b, []string{"many", "separate"}, func() error { return l.SolveMany(dst, a, c) }, func() error {
					for i := range c {
						if err := l.Solve(dst[i], a, c[i]); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
	}
}
