package lapackx

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

func TestEigSymResidual(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(1)
		for _, n := range []int{0, 1, 2, 5, 17, 64, 130} {
			a := randSym(rnd, n, 1)
			e := NewEigSym(n)
			require.NoError(t, e.Factorize(a))
			lam, v := e.Values(), e.Vectors()
			anorm := fnorm(a)
			for i := 0; i < n; i++ {
				if i > 0 {
					require.LessOrEqual(t, lam[i-1], lam[i])
				}
				// ‖A v_i − λ_i v_i‖ ≤ c·n·ε·‖A‖
				var r float64
				for p := 0; p < n; p++ {
					var s float64
					for q := 0; q < n; q++ {
						s += a[p*n+q] * v[i*n+q]
					}
					s -= lam[i] * v[i*n+p]
					r += s * s
				}
				require.Less(t, math.Sqrt(r), 10*float64(n)*eps*anorm, "n=%d i=%d", n, i)
			}
			// V Vᵀ = I
			vvt := mul(v, transposeCopy(v, n), n)
			for i := 0; i < n; i++ {
				vvt[i*n+i] -= 1
			}
			require.Less(t, fnorm(vvt), 10*float64(n)*eps+1e-300, "orthogonality n=%d", n)
		}
	})
}

func transposeCopy(a []float64, n int) []float64 {
	b := append([]float64(nil), a...)
	transposeSquare(b, n)
	return b
}

func TestSymFuncIdentities(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(2)
		for _, n := range []int{1, 3, 10, 40, 100} {
			s := NewSymFunc(n)
			// log(exp(S)) = S for symmetric S of moderate norm.
			sym := randSym(rnd, n, 1/math.Sqrt(float64(n)))
			ex, lg := make([]float64, n*n), make([]float64, n*n)
			require.NoError(t, s.Exp(ex, sym))
			require.True(t, isSymmetricExactly(ex, n))
			require.NoError(t, s.Log(lg, ex))
			require.Less(t, relErr(lg, sym), 1e-13*float64(n), "log(exp(S)) n=%d", n)

			// sqrt(A)² = A, A^½·A^−½ = I, A^0.3·A^0.7 = A for SPD A with cond 1e6.
			a := withSpectrum(rnd, logSpaced(n, 1e-3, 1e3))
			sq, isq := make([]float64, n*n), make([]float64, n*n)
			require.NoError(t, s.SqrtInvSqrt(sq, isq, a))
			require.Less(t, relErr(mul(sq, sq, n), a), 1e-12, "sqrt² n=%d", n)
			id := mul(sq, isq, n)
			for i := 0; i < n; i++ {
				id[i*n+i] -= 1
			}
			require.Less(t, fnorm(id), 1e-9, "sqrt·invsqrt n=%d", n) // κ(A^½) = 1e3
			p3, p7 := make([]float64, n*n), make([]float64, n*n)
			require.NoError(t, s.Pow(p3, a, 0.3))
			require.NoError(t, s.Pow(p7, a, 0.7))
			require.Less(t, relErr(mul(p3, p7, n), a), 1e-11, "pow n=%d", n)
		}
	})
}

func TestSymFuncErrors(t *testing.T) {
	s := NewSymFunc(3)
	dst := make([]float64, 9)
	good := []float64{2, 1, 0, 1, 2, 0, 0, 0, 2}
	bad := append([]float64(nil), good...)
	bad[4] = math.NaN()
	require.ErrorIs(t, s.Exp(dst, bad), numerr.ErrNotFinite)
	bad[4] = math.Inf(-1)
	require.ErrorIs(t, s.Exp(dst, bad), numerr.ErrNotFinite)
	asym := append([]float64(nil), good...)
	asym[1] += 1e-6
	err := s.Exp(dst, asym)
	require.ErrorIs(t, err, numerr.ErrNotSymmetric)
	require.Contains(t, err.Error(), "a[1,0]")
	indef := []float64{1, 0, 0, 0, -1e-3, 0, 0, 0, 1}
	for name, f := range map[string]func([]float64, []float64) error{"log": s.Log, "sqrt": s.Sqrt, "invsqrt": s.InvSqrt} {
		err := f(dst, indef)
		require.ErrorIs(t, err, numerr.ErrNotPosDef, name)
		require.Contains(t, err.Error(), "-0.001", name)
	}
	big := []float64{800, 0, 0, 0, 1, 0, 0, 0, 1}
	require.ErrorIs(t, s.Exp(dst, big), numerr.ErrOverflow)
	require.ErrorIs(t, s.Apply(dst, good, UserFunc(func(float64) float64 { return math.NaN() }, nil, false)), numerr.ErrNotFinite)
	require.NoError(t, s.Factorize(good))
	require.ErrorIs(t, s.Frechet(dst, good, UserFunc(math.Sin, nil, false)), ErrNoDerivative)
	// A failed Factorize leaves nothing to use.
	require.Error(t, s.Factorize(bad))
	require.Panics(t, func() { s.Eig().Values() })
	require.False(t, errors.Is(err, numerr.ErrNotFinite))
}

// TestFrechetFiniteDifference checks Df(A)[E] against the central
// difference (f(A+hE) − f(A−hE))/2h, whose error falls as h² until
// rounding takes over: the error ratio between h and h/2 must be near 4.
func TestFrechetFiniteDifference(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(3)
		n := 12
		spd := withSpectrum(rnd, logSpaced(n, 0.5, 4))
		funcs := map[string]Func{"exp": ExpFunc, "log": LogFunc, "sqrt": SqrtFunc, "invsqrt": InvSqrtFunc,
			"pow1.7": PowFunc(1.7), "user-atan": UserFunc(math.Atan, func(x float64) float64 { return 1 / (1 + x*x) }, false)}
		for name, f := range funcs {
			e := randSym(rnd, n, 1)
			s := NewSymFunc(n)
			require.NoError(t, s.Factorize(spd))
			d := make([]float64, n*n)
			require.NoError(t, s.Frechet(d, e, f))
			fd := func(h float64) float64 {
				ap, am := make([]float64, n*n), make([]float64, n*n)
				for i := range ap {
					ap[i], am[i] = spd[i]+h*e[i], spd[i]-h*e[i]
				}
				fp, fm := make([]float64, n*n), make([]float64, n*n)
				require.NoError(t, s.Apply(fp, ap, f))
				require.NoError(t, s.Apply(fm, am, f))
				for i := range fp {
					fp[i] = (fp[i] - fm[i]) / (2 * h)
				}
				return relErr(fp, d)
			}
			e1, e2 := fd(2e-3), fd(1e-3)
			require.Less(t, e2, 1e-4, name)
			require.InDelta(t, 4, e1/e2, 0.4, "%s: central-difference error must fall as h² (%g, %g)", name, e1, e2)
		}
	})
}

// TestFrechetRepeatedEigenvalues compares the Fréchet derivative at a
// matrix with clustered and repeated eigenvalues against the limit formula
// checked at a separated matrix: continuity of Df in A.
func TestFrechetRepeatedEigenvalues(t *testing.T) {
	rnd := newRand(4)
	n := 6
	q := randOrth(rnd, n)
	e := randSym(rnd, n, 1)
	lamExact := []float64{1, 1, 1, 2, 2, 3}
	for _, delta := range []float64{1e-3, 1e-6, 1e-9, 1e-12, 0} {
		lam := append([]float64(nil), lamExact...)
		for i := range lam {
			lam[i] += delta * float64(i)
		}
		a := congruent(q, lam)
		s := NewSymFunc(n)
		require.NoError(t, s.Factorize(a))
		for _, f := range []Func{ExpFunc, LogFunc, SqrtFunc, PowFunc(2.5)} {
			d := make([]float64, n*n)
			require.NoError(t, s.Frechet(d, e, f))
			for _, v := range d {
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0), "delta=%g", delta)
			}
			// Reference: direct Daleckii–Krein in the known basis with
			// f′ on exactly equal eigenvalues.
			ref := dkReference(q, lam, e, f)
			require.Less(t, relErr(d, ref), 1e-9+10*delta, "%T delta=%g", f, delta)
		}
	}
}

// congruent returns Qᵀ diag(λ) Q, exactly symmetric.
func congruent(q, lam []float64) []float64 {
	a := fuzzing.FromEigen(q, lam)
	Symmetrize(a, len(lam))
	return a
}

// dkReference evaluates Qᵀ (L ∘ Q E Qᵀ) Q with L from f and f′ by finite
// quotients computed in extended care (math/big is overkill here: f′ of the
// built-ins is known in closed form).
func dkReference(q, lam, e []float64, f Func) []float64 {
	n := len(lam)
	qe := mul(q, e, n)
	m := mul(qe, transposeCopy(q, n), n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m[i*n+j] *= f.DivDiff(lam[i], lam[j])
		}
	}
	return mul(mul(transposeCopy(q, n), m, n), q, n)
}

func TestLyapSym(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(5)
		for _, n := range []int{1, 2, 9, 50, 120} {
			for _, cond := range []float64{1, 1e4, 1e8} {
				a := withSpectrum(rnd, logSpaced(n, 1/cond, 1))
				c := randSym(rnd, n, 1)
				l := NewLyapSym(n)
				x := make([]float64, n*n)
				require.NoError(t, l.Solve(x, a, c))
				require.True(t, isSymmetricExactly(x, n))
				ax := mul(a, x, n)
				r := make([]float64, n*n)
				for i := range r {
					r[i] = ax[i] + ax[(i%n)*n+i/n] - c[i] // AX + XA = AX + (AX)ᵀ
				}
				// Backward-stable: residual ≤ c·n·ε·‖A‖‖X‖.
				bound := 20 * float64(n) * eps * fnorm(a) * fnorm(x)
				require.Less(t, fnorm(r), bound+1e-300, fmt.Sprintf("n=%d cond=%g", n, cond))
			}
		}
		// Singular: A with eigenvalues 1 and −1.
		l := NewLyapSym(2)
		err := l.Solve(make([]float64, 4), []float64{0, 1, 1, 0}, []float64{1, 0, 0, 1})
		require.ErrorIs(t, err, numerr.ErrSingular)
	})
}

func TestCongruence(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(16)
		for _, n := range []int{1, 4, 33} {
			v := randGeneral(rnd, n, n, 1)
			msym := randSym(rnd, n, 1)
			for _, trans := range []bool{false, true} {
				m, p, dst := append([]float64(nil), msym...), make([]float64, n*n), make([]float64, n*n)
				Congruence(dst, v, m, p, n, trans)
				var want []float64
				if trans {
					want = mul(mul(transposeCopyGeneral(v, n), msym, n), v, n)
				} else {
					want = mul(mul(v, msym, n), transposeCopyGeneral(v, n), n)
				}
				require.Less(t, relErr(dst, want), 1e-13, "n=%d trans=%v", n, trans)
				require.True(t, isSymmetricExactly(dst, n))
			}
		}
	})
}

func transposeCopyGeneral(a []float64, n int) []float64 {
	b := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b[j*n+i] = a[i*n+j]
		}
	}
	return b
}

func TestEigValuesOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(17)
		n := 30
		a := randSym(rnd, n, 1)
		e := NewEigSym(n)
		require.NoError(t, e.Factorize(a))
		full := append([]float64(nil), e.Values()...)
		require.NoError(t, e.FactorizeValues(a))
		require.Less(t, relErr(e.Values(), full), 1e-14)
		require.Panics(t, func() { e.Vectors() })
	})
}

func TestReduceSymAndFactorizeLower(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(18)
		for _, n := range []int{1, 5, 40} {
			b := withSpectrum(rnd, logSpaced(n, 0.5, 3))
			a := randSym(rnd, n, 1)
			l := append([]float64(nil), b...)
			require.True(t, Impl{}.Dpotrf('L', n, l, n))
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					l[i*n+j] = 0
				}
			}
			red := append([]float64(nil), a...)
			ReduceSym(red, l, n)
			// Reference: L⁻¹ A L⁻ᵀ via explicit inverse products.
			var lm mat.TriDense
			lm.SetRawTriangular(blas64.Triangular{Uplo: 'L', Diag: 'N', N: n, Stride: n, Data: l})
			var li mat.TriDense
			require.NoError(t, li.InverseTri(&lm))
			var ref mat.Dense
			ref.Product(&li, mat.NewDense(n, n, a), li.T())
			want := ref.RawMatrix().Data
			for i := 0; i < n; i++ { // compare the lower triangle
				for j := 0; j <= i; j++ {
					require.InDelta(t, want[i*n+j], red[i*n+j], 1e-12*fnorm(want), "n=%d (%d,%d)", n, i, j)
				}
			}
			// FactorizeLower reads only that triangle.
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					red[i*n+j] = math.NaN()
				}
			}
			e1, e2 := NewEigSym(n), NewEigSym(n)
			require.NoError(t, e1.FactorizeLower(red))
			Symmetrize(want, n)
			require.NoError(t, e2.Factorize(want))
			require.Less(t, relErr(e1.Values(), e2.Values()), 1e-12)
		}
	})
}
