package stiefel_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/stiefel"
)

// FuzzRetract: every retraction, from a point (the QR factor of fuzzed
// data) along any direction, either fails with a shared sentinel or
// returns a point with orthonormal columns that meets an independent
// check, in plain loops, of the map's defining property, with Y = X + tU
// and ε the unit roundoff (tolerances 1e3·n·ε times the sizes below):
//
//	all          R_x(0·u) = x;
//	QR           (Householder and CholeskyQR2 alike)
//	             QᵀQ = I; R = Qᵀ Y upper triangular (below the diagonal
//	             within ‖Y‖) with a positive diagonal, and Q·triu(R) = Y
//	             within ‖Y‖; the positivity is exact, since the retraction
//	             rejects min|R_jj| ≤ 64ε‖Y‖ and QᵀY differs from the
//	             factorization's R by its backward error, a few ε‖Y‖;
//	Polar        P = Qᵀ Y symmetric within κ‖Y‖ and positive definite (a
//	             Cholesky factorization), and Q P = Y within κ‖Y‖ (so Q
//	             spans the columns of Y), κ = ‖Y‖_F bounding the condition
//	             of Y, whose σ_min is at least 1 for a tangent U;
//	Cayley       (I − t/2 W) Q = (I + t/2 W) X with W = P U Xᵀ − X (P U)ᵀ,
//	             P = I − ½XXᵀ, formed as n×n matrices (the library uses
//	             the Woodbury identity on 2p×2p blocks), within (1 + w)³
//	             for w = |t|‖W‖/2: I − t/2 W has condition ≤ 1 + w, but
//	             the Woodbury system I − t/2 BᵀA has a block −t²(PU)ᵀPU/2
//	             and condition up to about w², so Q carries an error up to
//	             w²ε and the residual (I − t/2 W)·δQ up to w³ε (seen:
//	             5e−6 in Q at w = 1.1e6, polar pass included);
//	Exponential  the geodesic ODE Y″ = −Y (Y′ᵀY′) of the embedded metric
//	             from (X, tU), integrated by RK4 with 64 and 128 steps
//	             for ‖tU‖_F ≤ 2, within twice the two solutions' difference
//	             (Richardson's estimate of the error of the finer one is a
//	             fifteenth of it).
//
// That each map agrees with the exponential to first (or second) order is
// a statement about t → 0 that a single fuzzed input cannot test; the
// manifold suite checks the slopes.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 4, 2, 0, 16, 0, 3, 0, 1, 0, 8, 0, 2, 0, 5, 0, 9, 0, 4, 0, 1, 0, 16, 0, 2, 0, 3, 0, 1, 0, 2, 0, 8})
	f.Add([]byte{0, 3, 3, 3, 127, 0, 1, 127, 127, 0, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 127, 127})
	f.Add([]byte{1, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f})
	// Full inputs (the seeds above run out of bytes before t, which then
	// is 0): seed(n, p, retraction, t-exponent byte) in moderate values.
	seed := func(n, p, r, te byte) []byte {
		d := []byte{0, n - 1, p - 1, r}
		for i := 0; i < 2*int(n)*int(p); i++ {
			v := byte((i*53 + 11) % 100)
			if i%3 == 2 {
				v = -v // some negative entries
			}
			d = append(d, v, 0)
		}
		return append(d, 16, te) // t = 2^(int8(te)/8)
	}
	for r := byte(0); r < 4; r++ {
		f.Add(seed(5, 3, r, 0))   // t = 1
		f.Add(seed(4, 4, r, 232)) // t = 1/8
		f.Add(seed(6, 2, r, 24))  // t = 8
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 6)
		p := src.Int(1, n)
		m := stiefel.New(n, p)
		m.Retraction = stiefel.Retraction(src.Int(0, 3))
		x := src.Matrix(n, p)
		if err := (stiefel.New(n, p)).Retract(x, make([]float64, n*p), x, 1); err != nil {
			return // no point to start from (QR of x itself)
		}
		u := src.Matrix(n, p)
		if m.Retraction != stiefel.QR && fuzzing.Finite(u) {
			m.Project(u, x, u) // the others take tangents; QR any full-rank X + tU
			m.Project(u, x, u) // twice: the first leaves rounding of the normal part
			if m.CheckTangent(x, u) != nil {
				// Each projection shrinks the normal part only by about ε:
				// a u of 1e116 along x keeps 1e85 of it, and a map that
				// takes tangents owes nothing to such input.
				return
			}
		}
		tt := src.Float()
		methods := []stiefel.QRMethod{stiefel.QRAuto}
		if m.Retraction == stiefel.QR {
			methods = []stiefel.QRMethod{stiefel.QRHouseholder, stiefel.QRCholesky2}
		}
		for _, q := range methods {
			m.QRMethod = q
			dst := make([]float64, n*p)
			err := m.Retract(dst, x, u, tt)
			if err != nil {
				if !errors.Is(err, numerr.ErrNotFinite) && !errors.Is(err, numerr.ErrSingular) &&
					!errors.Is(err, numerr.ErrNotPosDef) && !errors.Is(err, numerr.ErrOverflow) && !errors.Is(err, numerr.ErrNotConverged) {
					t.Fatalf("%v (%v): unclassified error %v", m.Retraction, q, err)
				}
				continue
			}
			c := m.Clone().(*stiefel.Stiefel)
			if err := c.CheckPoint(dst); err != nil {
				t.Fatalf("%v (%v): R_x(tu) is not a point (%v): x %v u %v t %v", m.Retraction, q, err, x, u, tt)
			}
			if msg := checkRetraction(m, x, u, tt, dst, n, p); msg != "" {
				t.Fatalf("%v (%v): %s: x %v u %v t %v, R_x(tu) %v", m.Retraction, q, msg, x, u, tt, dst)
			}
		}
	})
}

const eps = 0x1p-52

// checkRetraction returns what is wrong with q = R_x(tu), or "".
func checkRetraction(m *stiefel.Stiefel, x, u []float64, tt float64, q []float64, n, p int) string {
	fn := float64(n)
	tol := 1e3 * fn * eps
	z := make([]float64, n*p)
	if err := m.Retract(z, x, u, 0); err != nil {
		return "R_x(0·u) fails: " + err.Error()
	}
	if d := fuzzing.Frob(fuzzing.Sub(z, x)); !(d <= tol*math.Sqrt(float64(p))) {
		return sprintf("‖R_x(0·u) − x‖ = %.3g", d)
	}
	y := make([]float64, n*p)
	for i := range y {
		y[i] = x[i] + tt*u[i]
	}
	yn := fuzzing.Frob(y)
	switch m.Retraction {
	case stiefel.QR:
		if d := fuzzing.Frob(fuzzing.Sub(fuzzing.MulTPlain(q, q, p, n, p), fuzzing.Eye(p))); !(d <= tol) {
			return sprintf("‖QᵀQ − I‖ = %.3g", d)
		}
		r := fuzzing.MulTPlain(q, y, p, n, p)
		for i := 0; i < p; i++ {
			if !(r[i*p+i] > 0) {
				return sprintf("R = QᵀY has R[%d,%d] = %.3g ≤ 0 (‖Y‖ = %.3g): the sign is not normalized", i, i, r[i*p+i], yn)
			}
			for j := 0; j < i; j++ {
				if !(math.Abs(r[i*p+j]) <= tol*yn) {
					return sprintf("R = QᵀY is not upper triangular: R[%d,%d] = %.3g (‖Y‖ = %.3g)", i, j, r[i*p+j], yn)
				}
				r[i*p+j] = 0
			}
		}
		if d := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(q, r, n, p, p), y)); !(d <= tol*yn) {
			return sprintf("‖Q·triu(QᵀY) − Y‖ = %.3g (‖Y‖ = %.3g)", d, yn)
		}
	case stiefel.Polar:
		kappa := math.Max(1, yn)
		pm := fuzzing.MulTPlain(q, y, p, n, p)
		for i := 0; i < p; i++ {
			for j := 0; j < i; j++ {
				if d := math.Abs(pm[i*p+j] - pm[j*p+i]); !(d <= tol*kappa*yn) {
					return sprintf("P = QᵀY not symmetric: |P[%d,%d] − P[%d,%d]| = %.3g (‖Y‖ = %.3g)", i, j, j, i, d, yn)
				}
			}
		}
		if !cholOK(pm, p) {
			return sprintf("P = QᵀY = %v is not positive definite", pm)
		}
		if d := fuzzing.Frob(fuzzing.Sub(fuzzing.MulPlain(q, pm, n, p, p), y)); !(d <= tol*kappa*yn) {
			return sprintf("‖Q·QᵀY − Y‖ = %.3g (‖Y‖ = %.3g): Q does not span Y's columns", d, yn)
		}
	case stiefel.Cayley:
		v := make([]float64, n*p)
		for i := range v {
			v[i] = tt * u[i] // the library folds t into U the same way
		}
		xxv := fuzzing.MulPlain(x, fuzzing.MulTPlain(x, v, p, n, p), n, p, p) // X(XᵀV)
		pu := make([]float64, n*p)
		for i := range pu {
			pu[i] = v[i] - 0.5*xxv[i] // P V = V − ½X(XᵀV)
		}
		w := fuzzing.Sub(fuzzing.MulPlainT(pu, x, n, p, n), fuzzing.MulPlainT(x, pu, n, p, n)) // PU Xᵀ − X PUᵀ
		wn := fuzzing.Frob(w)
		wq, wx := fuzzing.MulPlain(w, q, n, n, p), fuzzing.MulPlain(w, x, n, n, p)
		res := make([]float64, n*p)
		for i := range res {
			res[i] = (q[i] - 0.5*wq[i]) - (x[i] + 0.5*wx[i])
		}
		g := 1 + wn/2
		if d := fuzzing.Frob(res); !(d <= tol*g*g*g*math.Sqrt(float64(p))) {
			return sprintf("‖(I − W/2)Q − (I + W/2)X‖ = %.3g with ‖tW‖ = %.3g", d, wn)
		}
	case stiefel.Exponential:
		v := make([]float64, n*p)
		for i := range v {
			v[i] = tt * u[i]
		}
		if !(fuzzing.Frob(v) <= 2) {
			return ""
		}
		y1, y2 := geodesicRK4(x, v, n, p, 64), geodesicRK4(x, v, n, p, 128)
		est := fuzzing.Frob(fuzzing.Sub(y1, y2))
		if d := fuzzing.Frob(fuzzing.Sub(q, y2)); !(d <= 2*est+tol*math.Sqrt(float64(p))) {
			return sprintf("‖Exp − RK4‖ = %.3g, RK4's own error ≈ %.3g (‖tU‖ = %.3g)", d, est/15, fuzzing.Frob(v))
		}
	}
	return ""
}

// geodesicRK4 integrates Y″ = −Y(Y′ᵀY′), Y(0) = x, Y′(0) = v over [0, 1]
// by the classical Runge–Kutta method with k steps.
func geodesicRK4(x, v []float64, n, p, k int) []float64 {
	y, yd := append([]float64(nil), x...), append([]float64(nil), v...)
	acc := func(y, yd []float64) []float64 {
		g := fuzzing.MulTPlain(yd, yd, p, n, p)
		a := fuzzing.MulPlain(y, g, n, p, p)
		for i := range a {
			a[i] = -a[i]
		}
		return a
	}
	h := 1 / float64(k)
	axpy := func(a []float64, s float64, b []float64) []float64 {
		out := make([]float64, len(a))
		for i := range a {
			out[i] = a[i] + s*b[i]
		}
		return out
	}
	for step := 0; step < k; step++ {
		k1y, k1v := yd, acc(y, yd)
		y2, v2 := axpy(y, h/2, k1y), axpy(yd, h/2, k1v)
		k2y, k2v := v2, acc(y2, v2)
		y3, v3 := axpy(y, h/2, k2y), axpy(yd, h/2, k2v)
		k3y, k3v := v3, acc(y3, v3)
		y4, v4 := axpy(y, h, k3y), axpy(yd, h, k3v)
		k4y, k4v := v4, acc(y4, v4)
		for i := range y {
			y[i] += h / 6 * (k1y[i] + 2*k2y[i] + 2*k3y[i] + k4y[i])
			yd[i] += h / 6 * (k1v[i] + 2*k2v[i] + 2*k3v[i] + k4v[i])
		}
	}
	return y
}

// cholOK reports whether the symmetric part of the p×p a has a Cholesky
// factorization with positive pivots.
func cholOK(a []float64, p int) bool {
	l := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.5 * (a[i*p+j] + a[j*p+i])
			for k := 0; k < j; k++ {
				s -= l[i*p+k] * l[j*p+k]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				l[i*p+i] = math.Sqrt(s)
			} else {
				l[i*p+j] = s / l[j*p+j]
			}
		}
	}
	return true
}

var sprintf = fmt.Sprintf
