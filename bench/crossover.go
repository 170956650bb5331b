package bench

import (
	"math/rand/v2"
	"time"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/rhgd/rhgd/blas"
)

// Crossover is one size of the dispatch sweep: pure Go against the native
// library on one BLAS call.
type Crossover struct {
	Op     string  // "dgemm" (n×n×n) or "dgemv" (n×n)
	N      int     // the size
	Go     float64 // seconds per call, gonum
	Native float64 // seconds per call, the native library
}

// Winner names the faster side.
func (c Crossover) Winner() string {
	if c.Native < c.Go {
		return "native"
	}
	return "go"
}

// MeasureCrossovers times the small calls around the crossovers that
// blas.Hybrid dispatches on (its Level3Cutoff and Level2Cutoff); nil in a
// pure-Go build.
func MeasureCrossovers(quick bool) []Crossover {
	if blas.Current() != blas.Native {
		return nil
	}
	native := blas.NewHybrid().Native
	var goImpl gblas.Float64 = gonum.Implementation{}
	minTime, rounds := 20*time.Millisecond, 5
	if quick {
		minTime, rounds = time.Millisecond, 1
	}
	time2 := func(f func(gblas.Float64)) (float64, float64) {
		var tg, tn []float64
		for range rounds { // alternating, like the cases
			g, _ := measure(func() error { f(goImpl); return nil }, minTime)
			n, _ := measure(func() error { f(native); return nil }, minTime)
			tg, tn = append(tg, g), append(tn, n)
		}
		return median(tg), median(tn)
	}
	rnd := rand.New(rand.NewPCG(3, 3))
	var out []Crossover
	for _, n := range []int{2, 3, 4, 6, 8, 12, 16, 32} {
		a, c := gaussian(rnd, n*n, 1), make([]float64, n*n)
		g, nat := time2(func(im gblas.Float64) { im.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n) })
		out = append(out, Crossover{Op: "dgemm", N: n, Go: g, Native: nat})
	}
	for _, n := range []int{32, 64, 96, 128, 192, 256, 384, 512} {
		a, x, y := gaussian(rnd, n*n, 1), gaussian(rnd, n, 1), make([]float64, n)
		g, nat := time2(func(im gblas.Float64) { im.Dgemv(gblas.NoTrans, n, n, 1, a, n, x, 1, 0, y, 1) })
		out = append(out, Crossover{Op: "dgemv", N: n, Go: g, Native: nat})
	}
	return out
}

// derivedCrossover is the smallest size of op from which the native
// library wins at every larger size measured (0 if it never does).
func derivedCrossover(cs []Crossover, op string) int {
	n := 0
	for _, c := range cs {
		if c.Op != op {
			continue
		}
		switch {
		case c.Winner() == "go":
			n = 0
		case n == 0:
			n = c.N
		}
	}
	return n
}
