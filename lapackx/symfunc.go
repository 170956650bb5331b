package lapackx

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// SymFunc evaluates spectral functions f(A) = Vᵀ diag(f(λ)) V of symmetric
// n×n matrices and their Fréchet derivatives, from one eigendecomposition
// held in the workspace.
//
// Matrices are row-major []float64 of length n·n holding both triangles.
// Results are exactly symmetric. A destination may be the same slice as
// the input matrix (the input is copied first), but two destinations of
// one call must be distinct.
//
// Factorize once, then call Eval and Frechet as often as needed; the
// one-shot methods (Exp, Log, …) factorize and evaluate. Steady-state
// calls allocate nothing. A SymFunc is not safe for concurrent use.
type SymFunc struct {
	eig *EigSym
	f   []float64 // f(λ)
	w   []float64 // n×n scratch
	p   []float64 // n×n scratch
	pow powFunc   // Pow's function, addressable so that it boxes for free
}

// NewSymFunc returns a workspace for n×n matrices.
func NewSymFunc(n int) *SymFunc {
	return &SymFunc{
		eig: NewEigSym(n),
		f:   make([]float64, n),
		w:   make([]float64, n*n),
		p:   make([]float64, n*n),
	}
}

// N returns the order of the matrices the workspace takes.
func (s *SymFunc) N() int { return s.eig.n }

// Eig returns the workspace's eigendecomposition, valid after Factorize.
func (s *SymFunc) Eig() *EigSym { return s.eig }

// Factorize computes and keeps the eigendecomposition of the symmetric a.
// See EigSym.Factorize for its errors.
func (s *SymFunc) Factorize(a []float64) error { return s.eig.Factorize(a) }

// FactorizeGraded is Factorize through EigSym.FactorizeGraded, for a
// matrix graded down its diagonal.
func (s *SymFunc) FactorizeGraded(a []float64) error { return s.eig.FactorizeGraded(a) }

// Exp sets dst = exp(A).
func (s *SymFunc) Exp(dst, a []float64) error { return s.Apply(dst, a, ExpFunc) }

// Log sets dst = log(A), the principal logarithm; A must be positive
// definite.
func (s *SymFunc) Log(dst, a []float64) error { return s.Apply(dst, a, LogFunc) }

// Sqrt sets dst = A^½; A must be positive definite.
func (s *SymFunc) Sqrt(dst, a []float64) error { return s.Apply(dst, a, SqrtFunc) }

// InvSqrt sets dst = A^−½; A must be positive definite.
func (s *SymFunc) InvSqrt(dst, a []float64) error { return s.Apply(dst, a, InvSqrtFunc) }

// Pow sets dst = A^p; A must be positive definite.
func (s *SymFunc) Pow(dst, a []float64, p float64) error {
	s.pow = powFunc{p}
	return s.Apply(dst, a, &s.pow)
}

// SqrtInvSqrt sets sqrt = A^½ and isqrt = A^−½ from one decomposition.
func (s *SymFunc) SqrtInvSqrt(sqrt, isqrt, a []float64) error {
	if err := s.Factorize(a); err != nil {
		return err
	}
	if err := s.Eval(sqrt, SqrtFunc); err != nil {
		return err
	}
	return s.Eval(isqrt, InvSqrtFunc)
}

// Apply factorizes a and sets dst = f(A).
func (s *SymFunc) Apply(dst, a []float64, f Func) error {
	if err := s.Factorize(a); err != nil {
		return err
	}
	return s.Eval(dst, f)
}

// Eval sets dst = f(A) for the factorized A. It returns an error wrapping
// numerr.ErrNotPosDef if f needs positive arguments and λ_min ≤ 0, numerr.ErrOverflow if
// some f(λ) is ±Inf and numerr.ErrNotFinite if one is NaN.
func (s *SymFunc) Eval(dst []float64, f Func) error {
	n := s.N()
	if len(dst) != n*n {
		panic(errShape)
	}
	if err := s.evalValues(f); err != nil {
		return err
	}
	v := s.eig.Vectors()
	// f(A) = Σ f_i v_i v_iᵀ = Wᵀ W + σ I with rows w_i = √(f_i − σ)·v_i and
	// σ = min(0, min f_i): one rank-n update of n³ flops, half a general
	// product. The shift σ keeps every weight non-negative when f changes
	// sign (log); since |σ| ≤ max|f_i| and every weight is at most 2·max|f_i|,
	// the rounding stays of the order of u·max|f_i|, as without it.
	sigma := 0.0
	for _, fi := range s.f {
		sigma = math.Min(sigma, fi)
	}
	k := 0
	for i, fi := range s.f {
		if g := fi - sigma; g > 0 {
			floats.ScaleTo(s.w[k*n:(k+1)*n], math.Sqrt(g), v[i*n:(i+1)*n])
			k++
		}
	}
	if k > 0 {
		gramUpper(dst, s.w[:k*n], k, n)
	} else {
		clear(dst)
	}
	for i := 0; i < n; i++ {
		dst[i*n+i] += sigma
	}
	mirrorUpper(dst, n)
	return nil
}

// evalValues sets s.f = f(λ) and checks the domain and the results.
func (s *SymFunc) evalValues(f Func) error {
	lam := s.eig.Values()
	if len(lam) > 0 && f.Positive() && !(lam[0] > 0) {
		return fmt.Errorf("lapackx: %w: smallest eigenvalue %.6g, function needs positive ones", numerr.ErrNotPosDef, lam[0])
	}
	for i, x := range lam {
		fi := f.Eval(x)
		switch {
		case math.IsInf(fi, 0):
			return fmt.Errorf("lapackx: %w: f(%.6g) = %v", numerr.ErrOverflow, x, fi)
		case math.IsNaN(fi):
			return fmt.Errorf("lapackx: %w: f(%.6g) = NaN", numerr.ErrNotFinite, x)
		}
		s.f[i] = fi
	}
	return nil
}

// Frechet sets dst = Df(A)[E], the Fréchet derivative of f at the
// factorized A in the symmetric direction e, by the Daleckii–Krein formula
// Df(A)[E] = Vᵀ (L ∘ (V E Vᵀ)) V with L_ij = f[λ_i, λ_j], the divided
// differences of f (f′(λ_i) on the diagonal and for equal eigenvalues).
// dst may be e. Errors are those of Eval, plus numerr.ErrNotFinite and
// numerr.ErrNotSymmetric for a bad e.
func (s *SymFunc) Frechet(dst, e []float64, f Func) error {
	n := s.N()
	if len(dst) != n*n {
		panic(errShape)
	}
	if u, ok := f.(userFunc); ok && u.df == nil {
		return fmt.Errorf("%w: Frechet of a UserFunc needs df", ErrNoDerivative)
	}
	if err := s.evalValues(f); err != nil {
		return err
	}
	m := s.w
	if err := checkSym("Frechet", m, e, n); err != nil {
		return err
	}
	v := s.eig.Vectors()
	congruenceVMVt(m, v, m, s.p, n)
	s.loewnerScale(m, f)
	congruenceVtMV(dst, v, m, s.p, n)
	mirrorUpper(dst, n)
	return nil
}

// loewnerScale multiplies the upper triangle of m by the Loewner matrix
// L_ij = f[λ_i, λ_j]. Where f(λ_i) and f(λ_j) differ by at least half the
// larger, the quotient (f_i − f_j)/(λ_i − λ_j) is accurate to a few ulps and
// costs no function call; closer pairs go to f.DivDiff.
func (s *SymFunc) loewnerScale(m []float64, f Func) {
	n := s.N()
	lam := s.eig.Values()
	for i := 0; i < n; i++ {
		li, fi := lam[i], s.f[i]
		row := m[i*n : (i+1)*n]
		row[i] *= f.DivDiff(li, li)
		for j := i + 1; j < n; j++ {
			lj, fj := lam[j], s.f[j]
			d := fi - fj
			if math.Abs(d) >= 0.5*math.Max(math.Abs(fi), math.Abs(fj)) && li != lj {
				row[j] *= d / (li - lj)
			} else {
				row[j] *= f.DivDiff(li, lj)
			}
		}
	}
}
