// Package plstiefel is a bilevel problem whose lower level is PL but not
// strongly convex: its lower Hessian is singular, as in the rank-deficient
// St(6,3) × SPD(5) example where undamped CG's hypergradient swings by
// orders of magnitude. On St(n, p) × R^m,
//
//	f(x, y) = ½‖y − c‖² + ⟨D, x⟩,
//	g(x, y) = ½ (y − Bx)ᵀ H (y − Bx),   H = Q Λ Qᵀ,
//
// with Q an m×r orthonormal basis, r < m, and Λ = diag(λ_1 … λ_r) in
// [λ_lo, λ_hi] ⊂ (0, ∞): H has rank r, so g is convex and PL (‖∇_y g‖² ≥
// 2λ_lo·(g − g*)) but not strongly convex, and its minimizers form the
// affine set Bx + ker(H). Gradient steps on y never move the component in
// ker H = ker Qᵀ, so the lower iterates converge to the projection of
// their start onto that set, y*(x) = y − QQᵀ(y − Bx) (LowerSolve), and
//
//	F(x) = f(x, y*(x)),   grad F(x) = P_x(D + BᵀQQᵀ(Bx − c))
//
// (TrueHyperGrad), P_x the projection onto T_x St(n, p). This is the
// implicit hypergradient with the pseudo-inverse, −G_xy g[H⁺ ∇_y f], as
// G_xy g = −BᵀH vanishes on ker H. ∇_y f = y − c has a component in ker H
// in general, so H v = ∇_y f has no solution and undamped CG breaks down
// (solver.ErrSingular), while the damped solve (H + δI) v = ∇_y f of
// cg:damping=auto converges (the damping's bias on the hypergradient is
// at most δ/(λ_lo + δ)·‖BᵀQQᵀ∇_y f‖).
package plstiefel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// Params are the problem's parameters. Each field's doc tag documents it
// (problems.Params).
type Params struct {
	problems.Options
	N    int `rhgd:"n" doc:"rows of the Stiefel upper variable"`
	P    int `rhgd:"p" doc:"columns of the Stiefel upper variable"`
	M    int `rhgd:"m" doc:"dimension of the Euclidean lower variable"`
	Rank int `rhgd:"rank" doc:"rank of the lower Hessian, below m"`
}

// DefaultParams returns St(6,3) × R^5 with a lower Hessian of rank 3.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, N: 6, P: 3, M: 5, Rank: 3}
}

// Paper holds settings that suit the problem: η_x = 0.2, η_y = 0.5 (the
// nonzero eigenvalues of H are at most 1.5), S = 20, K = 200, and the
// estimators that handle a singular lower Hessian: damped CG, NS (whose
// truncated series stays finite on ker H, which G_xy g annihilates) and
// AD. Undamped CG stops with solver.ErrSingular.
var Paper = problems.Paper{Settings: solver.Settings{EtaX: 0.2, EtaY: 0.5, InnerIters: 20, Epochs: 200},
	Estimators: []string{"cg:maxiter=50,tol=1e-10,damping=auto", "ns:gamma=1,terms=50", "ad"}}

// Spec is the problem for the command line and the C ABI.
var Spec = problems.Define(problems.Spec{Name: "plstiefel",
	Summary: "St(n,p) × R^m with a rank-deficient quadratic lower level (PL, not strongly convex): undamped CG fails, damped CG converges",
}, DefaultParams, Build)

// Problem holds the data: B (m × np), Q (m × r), Λ (r), H = QΛQᵀ (m×m),
// c (m) and D (n×p), row-major.
type Problem struct {
	n, p, m, r int
	B, Q, Lam  []float64
	H, C, D    []float64
	e, he, qe  []float64 // scratch
	Mx         *stiefel.Stiefel
	My         *euclid.Euclidean
}

// Generate draws the data from seed: B with normal entries scaled by
// 1/√(np), Q orthonormal, Λ uniform in [0.5, 1.5], c and D normal (D
// scaled by 1/√(np)).
func Generate(n, p, m, r int, seed uint64) (*Problem, error) {
	switch {
	case n < 1 || p < 1 || p > n:
		return nil, fmt.Errorf("%w: St(%d,%d): want 1 ≤ p ≤ n", problems.ErrBadParam, n, p)
	case m < 2 || r < 1 || r >= m:
		return nil, fmt.Errorf("%w: m = %d, rank = %d: want 1 ≤ rank < m", problems.ErrBadParam, m, r)
	}
	rnd := rand.New(rand.NewPCG(seed, 0x91a7))
	np := n * p
	pr := &Problem{n: n, p: p, m: m, r: r, B: make([]float64, m*np), Q: make([]float64, m*r), Lam: make([]float64, r),
		H: make([]float64, m*m), C: make([]float64, m), D: make([]float64, np),
		e: make([]float64, m), he: make([]float64, m), qe: make([]float64, r), Mx: stiefel.New(n, p), My: euclid.New(m, 1)}
	s := 1 / math.Sqrt(float64(np))
	for i := range pr.B {
		pr.B[i] = s * rnd.NormFloat64()
	}
	for i := range pr.D {
		pr.D[i] = s * rnd.NormFloat64()
	}
	for i := range pr.C {
		pr.C[i] = rnd.NormFloat64()
	}
	// Q: Gram–Schmidt (twice) on normal columns.
	for j := 0; j < r; j++ {
		for i := 0; i < m; i++ {
			pr.Q[i*r+j] = rnd.NormFloat64()
		}
		for pass := 0; pass < 2; pass++ {
			for k := 0; k < j; k++ {
				var d float64
				for i := 0; i < m; i++ {
					d += pr.Q[i*r+j] * pr.Q[i*r+k]
				}
				for i := 0; i < m; i++ {
					pr.Q[i*r+j] -= d * pr.Q[i*r+k]
				}
			}
		}
		var nn float64
		for i := 0; i < m; i++ {
			nn += pr.Q[i*r+j] * pr.Q[i*r+j]
		}
		nn = math.Sqrt(nn)
		for i := 0; i < m; i++ {
			pr.Q[i*r+j] /= nn
		}
		pr.Lam[j] = 0.5 + rnd.Float64()
	}
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			var h float64
			for k := 0; k < r; k++ {
				h += pr.Q[i*r+k] * pr.Lam[k] * pr.Q[j*r+k]
			}
			pr.H[i*m+j] = h
		}
	}
	return pr, nil
}

// matvec sets dst = A u for the rows×cols matrix A.
func matvec(dst, a []float64, rows, cols int, u []float64) {
	for i := 0; i < rows; i++ {
		var s float64
		for j := 0; j < cols; j++ {
			s += a[i*cols+j] * u[j]
		}
		dst[i] = s
	}
}

// matTvec sets dst = Aᵀ u for the rows×cols matrix A.
func matTvec(dst, a []float64, rows, cols int, u []float64) {
	clear(dst)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			dst[j] += a[i*cols+j] * u[i]
		}
	}
}

// resid sets pr.e = y − Bx and pr.he = H e.
func (pr *Problem) resid(pt *solver.Point) {
	matvec(pr.e, pr.B, pr.m, pr.n*pr.p, pt.X)
	for i := range pr.e {
		pr.e[i] = pt.Y[i] - pr.e[i]
	}
	matvec(pr.he, pr.H, pr.m, pr.m, pr.e)
}

// Euclidean returns the problem's Euclidean oracles.
func (pr *Problem) Euclidean() solver.EuclideanProblem {
	m, np := pr.m, pr.n*pr.p
	return solver.EuclideanProblem{Mx: pr.Mx, My: pr.My,
		F: func(pt *solver.Point) (float64, error) {
			var s float64
			for i := range pr.C {
				d := pt.Y[i] - pr.C[i]
				s += d * d
			}
			var lin float64
			for i := range pr.D {
				lin += pr.D[i] * pt.X[i]
			}
			return s/2 + lin, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pr.D); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = pt.Y[i] - pr.C[i]
			}
			return nil
		},
		G: func(pt *solver.Point) (float64, error) {
			pr.resid(pt)
			var s float64
			for i := range pr.e {
				s += pr.e[i] * pr.he[i]
			}
			return s / 2, nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error { pr.resid(pt); copy(dst, pr.he); return nil },
		GradGx: func(dst []float64, pt *solver.Point) error {
			pr.resid(pt)
			matTvec(dst, pr.B, m, np, pr.he)
			floats.Scale(-1, dst)
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error { matvec(dst, pr.H, m, m, v); return nil },
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			matvec(pr.he, pr.H, m, m, v)
			matTvec(dst, pr.B, m, np, pr.he)
			floats.Scale(-1, dst)
			return nil
		},
		CrossGyx: func(dst []float64, pt *solver.Point, u []float64) error {
			matvec(pr.e, pr.B, m, np, u)
			matvec(dst, pr.H, m, m, pr.e)
			floats.Scale(-1, dst)
			return nil
		},
	}
}

// LowerSolve sets dst to y*(x) = y − QQᵀ(y − Bx), the lower minimizer the
// lower steps from pt.Y converge to.
func (pr *Problem) LowerSolve(dst []float64, pt *solver.Point) error {
	matvec(pr.e, pr.B, pr.m, pr.n*pr.p, pt.X)
	for i := range pr.e {
		pr.e[i] = pt.Y[i] - pr.e[i]
	}
	matTvec(pr.qe, pr.Q, pr.m, pr.r, pr.e)
	matvec(pr.he, pr.Q, pr.m, pr.r, pr.qe)
	for i := range dst {
		dst[i] = pt.Y[i] - pr.he[i]
	}
	return nil
}

// TrueHyperGrad sets dst to grad F(x) = P_x(D + BᵀQQᵀ(Bx − c)), the
// hypergradient at the exact lower solution, for checks (it allocates).
func (pr *Problem) TrueHyperGrad(dst, x []float64) {
	m, np := pr.m, pr.n*pr.p
	bx := make([]float64, m)
	matvec(bx, pr.B, m, np, x)
	for i := range bx {
		bx[i] -= pr.C[i]
	}
	qe := make([]float64, pr.r)
	matTvec(qe, pr.Q, m, pr.r, bx)
	matvec(bx, pr.Q, m, pr.r, qe)
	eg := make([]float64, np)
	matTvec(eg, pr.B, m, np, bx)
	for i := range eg {
		eg[i] += pr.D[i]
	}
	pr.Mx.Project(dst, x, eg)
}

// Bilevel returns the Riemannian problem, with LowerSolve.
func (pr *Problem) Bilevel() solver.Problem {
	p := solver.Euclidean(pr.Euclidean())
	p.LowerSolve = pr.LowerSolve
	return p
}

// Build returns the problem with the Paper's settings, from a random
// point of St(n, p) and a random y (both from p.Seed).
func Build(p Params) (*problems.Instance, error) {
	if p.Data != "" {
		return nil, fmt.Errorf("%w: plstiefel takes no data file (got %q)", problems.ErrBadParam, p.Data)
	}
	pr, err := Generate(p.N, p.P, p.M, p.Rank, p.Seed)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	rnd := rand.New(rand.NewPCG(p.Seed, 0x5ee7))
	in.X0 = make([]float64, pr.Mx.Len())
	pr.Mx.RandPoint(in.X0, rnd)
	in.Y0 = make([]float64, pr.My.Len())
	for i := range in.Y0 {
		in.Y0[i] = rnd.NormFloat64()
	}
	in.Problem = pr.Bilevel()
	in.TrueHyperGrad = func(dst, x, _ []float64) error { pr.TrueHyperGrad(dst, x); return nil }
	in.Describe = fmt.Sprintf("St(%d,%d) × R^%d, lower Hessian of rank %d", p.N, p.P, p.M, p.Rank)
	return in, nil
}
