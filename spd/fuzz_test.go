package spd_test

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// FuzzRetract: a retraction (second order or exponential) from any point
// along any direction either fails with a shared sentinel or returns a
// point of the manifold (symmetric, finite, positive definite) that meets
// an independent check of its formula, computed in plain Go on X and tU
// scaled by a power of two 2^k above max(|X|, |tU|) (exact but for
// entries pushed below 2^−1022; both maps are homogeneous of degree one
// in (X, tU)):
//
//	second order  X + V + ½ V X⁻¹ V, V = tU, with X⁻¹V by Gaussian
//	              elimination (the library forms ½X + ½(X+V)X⁻¹(X+V) by
//	              Cholesky); to 1e3·n·ε·‖X‖(1 + ‖V‖‖X⁻¹‖)², the effect of a
//	              backward error nε‖X‖ in X on (I + VX⁻¹) X (I + X⁻¹V), with
//	              ‖V‖‖X⁻¹‖ = κ(X)‖V‖/‖X‖; checked for κ(X) ≤ 1e12;
//	exponential   X·expm(M), M = X⁻¹V, by lapackx.Expm (Padé on the
//	              non-symmetric M; the library uses an eigendecomposition of
//	              L⁻¹VL⁻ᵀ); to 1e3·n·ε·κ(X)·max(1, ‖M‖)·‖X‖‖e^M‖: M's error
//	              from the elimination (nεκ‖M‖) through exp, whose
//	              condition is ‖M‖ on the symmetric S = L⁻¹VL⁻ᵀ and at most κ
//	              times more on M = L⁻ᵀSLᵀ; checked for κ(X) ≤ 1e6 and
//	              ‖M‖_F ≤ 20, where it is meaningful.
//
// Norms are Frobenius and κ(X) = ‖X‖_F‖X⁻¹‖_F, all computed plainly.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 3, 0, 16, 0, 1, 0, 0, 0, 16, 0, 0, 0, 16, 0, 4, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 16})
	f.Add([]byte{0, 2, 1, 127, 10, 1, 0, 127, 10, 127, 127, 127, 127, 127, 127, 8, 8})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	// The first seed with the exponential map, and a 3×3 one with both.
	f.Add([]byte{0, 3, 1, 16, 0, 1, 0, 0, 0, 16, 0, 0, 0, 16, 0, 4, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 16})
	f.Add([]byte{0, 2, 0, 40, 0, 8, 0, 3, 0, 30, 0, 5, 0, 20, 0, 7, 0, 9, 0, 250, 0, 4, 0, 6, 0, 11, 0, 16, 0})
	f.Add([]byte{0, 2, 1, 40, 0, 8, 0, 3, 0, 30, 0, 5, 0, 20, 0, 7, 0, 9, 0, 250, 0, 4, 0, 6, 0, 11, 0, 16, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 5)
		m := spd.New(n)
		if src.Int(0, 1) == 1 {
			m.Retraction = spd.Exponential
		}
		x, u := src.Symmetric(n), src.Symmetric(n)
		tt := src.Float()
		dst := make([]float64, n*n)
		err := m.Retract(dst, x, u, tt)
		if err != nil {
			if !errors.Is(err, numerr.ErrNotFinite) && !errors.Is(err, numerr.ErrNotPosDef) &&
				!errors.Is(err, numerr.ErrNotSymmetric) && !errors.Is(err, numerr.ErrOverflow) && !errors.Is(err, numerr.ErrUnderflow) && !errors.Is(err, numerr.ErrNotConverged) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if m.CheckPoint(x) != nil {
			t.Fatalf("nil error at a point that is not one: x = %v", x)
		}
		if err := m.CheckPoint(dst); err != nil {
			t.Fatalf("R_x(tu) = %v is not a point (%v): x %v u %v t %v", dst, err, x, u, tt)
		}
		checkFormula(t, m.Retraction, x, u, tt, dst, n)
	})
}

// checkFormula compares dst = R_x(tu) with the retraction's formula (see
// FuzzRetract).
func checkFormula(t *testing.T, r spd.Retraction, x, u []float64, tt float64, dst []float64, n int) {
	v := make([]float64, n*n)
	for i := range v {
		v[i] = tt * u[i] // as the library rounds it
	}
	if !fuzzing.Finite(v) {
		return
	}
	k := fuzzing.ExpAbove(math.Max(fuzzing.MaxAbs(x), fuzzing.MaxAbs(v)))
	xs, vs, ys := fuzzing.LdexpAll(x, -k), fuzzing.LdexpAll(v, -k), fuzzing.LdexpAll(dst, -k)
	xi, ok := solvePlain(xs, fuzzing.Eye(n), n)
	if !ok {
		return // singular to working precision: κ beyond any bound here
	}
	xn, xin, vn := fuzzing.Frob(xs), fuzzing.Frob(xi), fuzzing.Frob(vs)
	kappa := xn * xin
	const eps = 0x1p-52
	fn := float64(n)
	var want []float64
	var bound, amp float64 // amp: how the map magnifies a perturbation of X
	switch r {
	case spd.SecondOrder:
		if !(kappa <= 1e12) {
			return
		}
		z, ok := solvePlain(xs, vs, n) // X⁻¹V
		if !ok {
			return
		}
		vz := fuzzing.MulPlain(vs, z, n, n, n)
		want = make([]float64, n*n)
		for i := range want {
			want[i] = xs[i] + vs[i] + 0.5*vz[i]
		}
		g := 1 + vn*xin
		amp = g * g
		bound = 1e3 * fn * eps * (xn*g*g + fuzzing.Frob(want))
	case spd.Exponential:
		mm, ok := solvePlain(xs, vs, n) // M = X⁻¹V
		if !ok {
			return
		}
		mn := fuzzing.Frob(mm)
		if !(kappa <= 1e6 && mn <= 20) {
			return
		}
		e := make([]float64, n*n)
		if err := lapackx.NewExpm(n).Exp(e, mm); err != nil {
			t.Fatalf("Expm(X⁻¹tU) fails (%v) where Exp_x(tu) = %v: x %v u %v t %v", err, dst, x, u, tt)
		}
		want = fuzzing.MulPlain(xs, e, n, n, n)
		amp = kappa * math.Max(1, mn) * fuzzing.Frob(e)
		bound = 1e3 * fn * eps * amp * xn
	}
	// Entries below the normal range round absolutely: those of the
	// scaled quantities here, and the library's own in the original
	// units (up to 2^−1074 per operation, 2^(−1074−k) here), which the map
	// magnifies as it does X's backward error (a subnormal X is judged
	// only to that precision).
	bound += 4 * fn * fn * (1 + kappa) * 0x1p-1022
	if sub := math.Ldexp(64*fn*fn, -1074-k); sub > 0 { // no Inf·0
		bound += sub * math.Max(1, amp)
	}
	if d := fuzzing.Frob(fuzzing.Sub(ys, want)); !(d <= bound) {
		t.Fatalf("%s: ‖R_x(tu) − formula‖/2^%d = %.3g > %.3g (κ(X) = %.3g, ‖tU‖/2^k = %.3g): x %v u %v t %v, got %v, want %v·2^%d",
			map[spd.Retraction]string{spd.SecondOrder: "second order", spd.Exponential: "exponential"}[r], k, d, bound, kappa, vn, x, u, tt, dst, want, k)
	}
}

// solvePlain returns A⁻¹B for n×n A and B by Gaussian elimination with
// partial pivoting, in plain Go; ok is false for a zero pivot or a
// non-finite result.
func solvePlain(a, b []float64, n int) ([]float64, bool) {
	a, x := append([]float64(nil), a...), append([]float64(nil), b...)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r*n+c]) > math.Abs(a[p*n+c]) {
				p = r
			}
		}
		if a[p*n+c] == 0 {
			return nil, false
		}
		for j := 0; j < n; j++ {
			a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
			x[c*n+j], x[p*n+j] = x[p*n+j], x[c*n+j]
		}
		for r := c + 1; r < n; r++ {
			f := a[r*n+c] / a[c*n+c]
			for j := c; j < n; j++ {
				a[r*n+j] -= f * a[c*n+j]
			}
			for j := 0; j < n; j++ {
				x[r*n+j] -= f * x[c*n+j]
			}
		}
	}
	for c := n - 1; c >= 0; c-- {
		for j := 0; j < n; j++ {
			s := x[c*n+j]
			for l := c + 1; l < n; l++ {
				s -= a[c*n+l] * x[l*n+j]
			}
			x[c*n+j] = s / a[c*n+c]
		}
	}
	return x, fuzzing.Finite(x)
}
