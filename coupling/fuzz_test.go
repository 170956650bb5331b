package coupling_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

// FuzzRetract: the Sinkhorn retraction from any matrix along any
// direction, with fuzzed Sinkhorn settings, either fails with a shared
// sentinel (ErrSinkhornNotConverged too, with the best plan; a NaN Tol
// with ErrBadSetting) or returns a plan R that is
//
//   - on the marginals: (‖R1 − a‖₁ + ‖Rᵀ1 − b‖₁)/Σa ≤ Tol + 64(m+n)ε, Tol
//     the setting in force (the library's stopping test measures this
//     error; the slack is the rounding of the sums), and
//   - a diagonal scaling of the kernel, R = diag(α)·(X∘exp(tU⊘X))·diag(β)
//     for some α, β > 0, which is what makes it the Sinkhorn projection
//     rather than any plan with the marginals: in the log domain
//     L = log R − (log X + tU⊘X) must be f_i + g_j, so every 2×2 "minor"
//     L_ij − L_i0 − L_0j + L_00 vanishes. Every Sinkhorn iterate has this
//     form whatever the tolerance, so its bound is rounding only:
//     32ε·(S + 1) with S the largest |log X| + |tU⊘X| + |log R| + |L|
//     plus 512 for the scalings' logs (each within ±230), the error of
//     exponentials and logarithms of arguments that large, plus the
//     absolute error 2^−1074 of a kernel entry that fell below 2^−1022,
//     magnified by the scalings u_i v_j ≤ 1e200 that the library allows
//     before absorbing them: 2^−1074·1e200/R_ij relative, below 1e−23
//     for R_ij ≥ 1e−90.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 2, 3, 16, 0, 20, 0, 8, 0, 4, 0, 9, 0, 3, 0, 1, 0, 16, 0, 2, 0, 30, 0, 5, 0, 1, 0, 7, 0, 16, 0})
	f.Add([]byte{0, 3, 3, 127, 0, 1, 0, 50, 1, 3, 0, 100, 0, 16, 0, 16, 0, 16, 0, 127, 8, 200, 8, 3, 0, 9, 0, 16, 0})
	f.Add([]byte{1, 1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f})
	// m×n problems in moderate values with each of the settings, and a
	// long step: seed(m, n, settings, t-exponent byte).
	seed := func(m, n, set, te byte) []byte {
		d := []byte{0, m - 1, n - 1}
		k := int(m) + int(n) + 2*int(m)*int(n)
		for i := 0; i < k; i++ {
			d = append(d, byte(8+(i*37)%40), 0) // (8..47)/16, positive
			if i >= int(m)+int(n)+int(m)*int(n) && i%3 == 1 {
				d[len(d)-2] = byte(256 - 8 - (i*13)%30) // some negative U entries
			}
		}
		return append(d, 16, te, set) // t = 2^(int8(te)/8)
	}
	for set := byte(0); set <= 4; set++ {
		f.Add(seed(3, 4, set, 0))
	}
	f.Add(seed(2, 2, 0, 0))
	f.Add(seed(4, 3, 0, 40))  // t = 32: a long step
	f.Add(seed(4, 4, 1, 200)) // t = 2^−7
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		m, n := src.Int(1, 4), src.Int(1, 4)
		a, b := src.Matrix(m, 1), src.Matrix(n, 1)
		for _, v := range [][]float64{a, b} { // moderate positive marginals of equal mass
			for i := range v {
				v[i] = 0.1 + math.Mod(math.Abs(v[i]), 10)
				if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
					v[i] = 1
				}
			}
		}
		var sa, sb float64
		for _, v := range a {
			sa += v
		}
		for _, v := range b {
			sb += v
		}
		for j := range b {
			b[j] *= sa / sb
		}
		c, err := coupling.New(a, b)
		if err != nil {
			return
		}
		x, u := src.Matrix(m, n), src.Matrix(m, n)
		if !src.Raw() { // mostly positive matrices, so that the balancing runs
			for i := range x {
				x[i] = math.Abs(x[i]) + 1e-3
			}
		}
		tt := src.Float()
		tol := 1e-13 // the default
		switch src.Int(0, 4) {
		case 1:
			c.Sinkhorn, tol = coupling.SinkhornSettings{Tol: 1e-9}, 1e-9
		case 2:
			c.Sinkhorn, tol = coupling.SinkhornSettings{Tol: 1e-6, MaxIter: 50}, 1e-6
		case 3:
			c.Sinkhorn = coupling.SinkhornSettings{MaxIter: 3}
		case 4:
			c.Sinkhorn.Tol = math.NaN()
		}
		dst := make([]float64, m*n)
		err = c.Retract(dst, x, u, tt)
		if math.IsNaN(c.Sinkhorn.Tol) {
			if !errors.Is(err, coupling.ErrBadSetting) {
				t.Fatalf("NaN Sinkhorn.Tol: %v, want ErrBadSetting", err)
			}
			return
		}
		if err != nil {
			for _, s := range []error{numerr.ErrNotFinite, numerr.ErrInvalid, numerr.ErrUnderflow, numerr.ErrNotConverged} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("unclassified error %v", err)
		}
		// CheckPoint's default tolerance follows Sinkhorn.Tol; the
		// marginals are checked to tol below.
		if err := c.CheckPoint(dst); err != nil {
			t.Fatalf("R_x(tu) is not a plan (%v): a %v b %v x %v u %v t %v", err, a, b, x, u, tt)
		}
		if e := marginalError(dst, a, b, m, n) / sa; !(e <= tol+64*float64(m+n)*0x1p-52) {
			t.Fatalf("marginal error %.3g > Tol %.3g: a %v b %v x %v u %v t %v, R %v", e, tol, a, b, x, u, tt, dst)
		}
		if msg := checkScaling(dst, x, u, tt, m, n); msg != "" {
			t.Fatalf("%s: a %v b %v x %v u %v t %v, R %v", msg, a, b, x, u, tt, dst)
		}
	})
}

// marginalError returns ‖R1 − a‖₁ + ‖Rᵀ1 − b‖₁ by plain sums.
func marginalError(r, a, b []float64, m, n int) float64 {
	var e float64
	for i := 0; i < m; i++ {
		s := -a[i]
		for j := 0; j < n; j++ {
			s += r[i*n+j]
		}
		e += math.Abs(s)
	}
	for j := 0; j < n; j++ {
		s := -b[j]
		for i := 0; i < m; i++ {
			s += r[i*n+j]
		}
		e += math.Abs(s)
	}
	return e
}

// checkScaling returns what keeps R from being diag(α)·(X∘exp(tU⊘X))·diag(β),
// or "" (see FuzzRetract).
func checkScaling(r, x, u []float64, tt float64, m, n int) string {
	l := make([]float64, m*n)
	var s, slack float64
	for k := range l {
		q := tt * u[k] / x[k]
		lx, lr := logPlain(x[k]), logPlain(r[k])
		l[k] = lr - (lx + q)
		s = math.Max(s, math.Abs(lx)+math.Abs(q)+math.Abs(lr)+math.Abs(l[k]))
		slack = math.Max(slack, 8*0x1p-1074*1e200/r[k])
	}
	tol := 32*0x1p-52*(s+512+1) + 4*slack
	for i := 1; i < m; i++ {
		for j := 1; j < n; j++ {
			if d := l[i*n+j] - l[i*n] - l[j] + l[0]; !(math.Abs(d) <= tol) {
				return sprintf("R is not a diagonal scaling of X∘exp(tU⊘X): minor L[%d,%d] − L[%d,0] − L[0,%d] + L[0,0] = %.3g > %.3g", i, j, i, j, d, tol)
			}
		}
	}
	return ""
}

// logPlain is log x for x > 0, subnormals included (Go's math.Log is
// wrong below 2^−1022 on amd64, golang/go#56600).
func logPlain(x float64) float64 {
	if x < 0x1p-1022 {
		return math.Log(x*0x1p60) - 60*math.Ln2
	}
	return math.Log(x)
}

var sprintf = fmt.Sprintf
