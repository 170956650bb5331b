// Package minmax is a Riemannian min-max problem with a known saddle point,
// for the paper's Algorithm 3 (Appendix: min-max optimization):
//
//	min_{X ∈ St(n,p)} max_{Y ∈ SPD(p)} f(X, Y) = log det Y − ⟨Y, XᵀAX⟩
//
// for a given n×n symmetric positive definite A. For fixed X, with
// K = XᵀAX, the maximizer is Y*(X) = K⁻¹ and
//
//	F(X) = max_Y f(X, Y) = −p − log det(XᵀAX),
//
// minimized by every X whose columns span the eigenvectors of A's p largest
// eigenvalues λ_1 ≥ … ≥ λ_p (by Cauchy's interlacing theorem the i-th
// largest eigenvalue of XᵀAX is at most λ_i), with
// F* = −p − Σ_{i≤p} log λ_i. The minimizers form the orbit X*Q, Q ∈ O(p),
// since F(XQ) = F(X); the optimal subspace is unique when λ_p > λ_{p+1}.
//
// # Oracles
//
// With the affine-invariant metric on SPD(p) and the embedded one on
// St(n, p), g = −f and KY the product of K and Y:
//
//	grad_X f = P_X(−2 A X Y),         grad_Y f = Y − Y K Y,
//	H_Y g[U] = sym(U K Y) = ½(U K Y + Y K U),
//	G_XY g[V] = P_X(2 A X V),          G_YX g[U] = Y (UᵀAX + XᵀAU) Y,
//	H_Y g⁻¹[V] = L R Lᵀ with R S + S R = 2 L⁻¹VL⁻ᵀ, S = LᵀKL, Y = LLᵀ.
//
// The last holds because U = L R Lᵀ turns ½(UKY + YKU) into
// ½ L (R S + S R) Lᵀ; one eigendecomposition S = QᵀΛQ of a p×p matrix
// diagonalizes the Lyapunov equation: R = Qᵀ[(2 Q L⁻¹VL⁻ᵀ Qᵀ) ⊘ (λ_i + λ_j)]Q.
//
// # Strong convexity of the lower level
//
// With W = Y^{−½} U Y^{−½}, so that ‖U‖_Y = ‖W‖_F,
//
//	⟨H_Y g[U], U⟩_Y = tr(K U Y⁻¹ U) = tr(Y^½ K Y^½ W²),
//
// which lies between λ_min(KY)‖U‖²_Y and λ_max(KY)‖U‖²_Y (KY and
// Y^½KY^½ are similar). g(X, ·) is therefore strictly geodesically convex on
// all of SPD(p), but only locally strongly convex and smooth: the
// eigenvalues z_i of KY are e^{±(the coordinates of Log)} about Y* = K⁻¹,
// since d(Y, Y*) = ‖log z‖₂, so on the geodesic ball of radius r about Y*
// g is e^{−r}-strongly convex and e^{r}-smooth, and the Hessian at Y* is
// the identity (condition number 1). Its modulus tends to zero as Y
// shrinks towards the boundary of the cone.
//
// # Step sizes and the lower retraction
//
// In the coordinates Z = K^½ Y K^½ (an isometry of SPD(p)) the ascent step
// in Y acts on the eigenvalues z of KY alone. With the exponential map, as
// Algorithm 3 is written, it is z ↦ z·e^{−η_y(z−1)}, that is
// s ↦ s − η_y(e^s − 1) for s = log z: for η_y ≤ 1 it never moves s away from
// 0 (T(s) ≤ (1 − η_y)s for s > 0, and s ≤ T(s) ≤ (1 − η_y)s ≤ 0 for s ≤ 0),
// so it converges from every Y ≻ 0, linearly with rate 1 − η_y near Y*.
// With the second-order retraction it is z ↦ z(1 − η_y(z−1) + ½η_y²(z−1)²),
// which converges only from z ∈ (0, 1 + 2/η_y) and otherwise grows like
// z³: the upper steps, which change K = XᵀAX by large factors early in a
// run, push z out of that region (from a random X0 with η_x = ½, at the
// first epoch). New therefore sets the SPD manifold's retraction to
// spd.Exponential. Start puts Y0 = I/λ_max(X0ᵀAX0), so that every
// eigenvalue of K Y0 lies in (0, 1], where both iterations increase z
// monotonically to 1.
//
// The upper step η_x is scale-free: F and grad_X f at Y*(X) do not change
// when A is scaled, and the Riemannian Hessian of F at X* has the
// eigenvalues 2(1 − λ_j/λ_i), i ≤ p < j (and 0 along the O(p) orbit), so
// η_x = ½ contracts those modes by λ_j/λ_i ≤ λ_{p+1}/λ_p per epoch.
package minmax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// Data is the matrix A (n×n, row-major, symmetric positive definite) and
// the number p of columns of X; the tags name A in the problem's .npz
// file (problems.ReadTagged).
type Data struct {
	N int       `dim:"n"`
	P int       `dim:"p"`
	A []float64 `npz:"A" shape:"n×n"`
	// Spectrum holds the eigenvalues A was built with, in descending
	// order, when Generate made it; nil for loaded data.
	Spectrum []float64
}

// Generate returns A = Qᵀ diag(λ) Q with Q Haar-random orthogonal from
// seed and the spectrum λ_1 = 1 > … > λ_n = 1/cond whose consecutive
// ratios λ_{i+1}/λ_i are all equal except λ_{p+1}/λ_p = gap, which sets
// the rate of the upper level. It needs n ≥ 3, 1 ≤ p < n, 0 < gap ≤ 1 and
// cond·gap ≥ 1 (so that the other ratios are at most 1).
func Generate(n, p int, cond, gap float64, seed uint64) (*Data, error) {
	switch {
	case n < 3 || p < 1 || p >= n:
		return nil, fmt.Errorf("%w: minmax: need n ≥ 3 and 1 ≤ p < n, have n = %d, p = %d", problems.ErrBadData, n, p)
	case !(gap > 0 && gap <= 1):
		return nil, fmt.Errorf("%w: minmax: gap λ_{p+1}/λ_p = %v must be in (0, 1]", problems.ErrBadData, gap)
	case !(cond*gap >= 1) || math.IsInf(cond, 0):
		return nil, fmt.Errorf("%w: minmax: need a finite cond with cond·gap ≥ 1, have cond = %v, gap = %v", problems.ErrBadData, cond, gap)
	}
	// λ_n = r^{n−2}·gap = 1/cond.
	r := math.Pow(1/(cond*gap), 1/float64(n-2))
	lam := make([]float64, n)
	lam[0] = 1
	for i := 1; i < n; i++ {
		if i == p {
			lam[i] = lam[i-1] * gap
		} else {
			lam[i] = lam[i-1] * r
		}
	}
	q := make([]float64, n*n)
	stiefel.New(n, n).RandPoint(q, rand.New(rand.NewPCG(seed, 0x3a11)))
	// A = Q diag(λ) Qᵀ = Σ λ_i q_i q_iᵀ over the columns q_i of Q.
	qs := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			qs[i*n+j] = q[i*n+j] * lam[j]
		}
	}
	a := make([]float64, n*n)
	blas.Impl().Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, qs, n, q, n, 0, a, n)
	lapackx.Symmetrize(a, n)
	return &Data{N: n, P: p, A: a, Spectrum: lam}, nil
}

// Problem is the min-max problem with its manifolds (SPD with the
// exponential map as its retraction) and scratch space. Its
// oracles allocate nothing and keep per-point work (AX and K = XᵀAX per X,
// Y's Cholesky factor per Y, KY and the Hessian's eigendecomposition per
// (X, Y)) by the point's identity (solver.Memo). It is not safe for
// concurrent use.
type Problem struct {
	n, p  int
	a     []float64
	notes []string
	lam   []float64        // eigenvalues of A, ascending
	vec   []float64        // eigenvectors of A, rows
	St    *stiefel.Stiefel // the upper manifold, St(n, p)
	SPD   *spd.SPD         // the lower manifold, SPD(p), with the exponential map
	eig   *lapackx.EigSym  // p×p
	// Per X: AX (n×p) and K = XᵀAX (p×p).
	ax, k []float64
	kAt   solver.Memo
	// Per Y: L with Y = LLᵀ (upper part zero), log det Y; L⁻¹.
	chol, linv   []float64
	logdet       float64
	cholAt, liAt solver.Memo
	// Per (X, Y): KY; G = Q L⁻¹, H = L Qᵀ and Λ for the inverse Hessian.
	ky         []float64
	kyAt       solver.Memo
	hg, hh, hl []float64
	hinvAt     solver.Memo
	// scratch
	pp [4][]float64 // p×p
	np []float64    // n×p
}

// New returns the problem for data, which it validates (A finite,
// symmetric to float32 rounding, positive definite; 1 ≤ p < n) and
// copies, symmetrized (problems.SymmetrizeInput: an A asymmetric beyond
// float64 rounding gets a note, Notes).
func New(data *Data) (*Problem, error) {
	if data == nil {
		return nil, fmt.Errorf("%w: minmax: no data", problems.ErrBadData)
	}
	n, p := data.N, data.P
	switch {
	case n < 2 || p < 1 || p >= n:
		return nil, fmt.Errorf("%w: minmax: need 1 ≤ p < n, have n = %d, p = %d", problems.ErrBadData, n, p)
	case len(data.A) != n*n:
		return nil, fmt.Errorf("%w: minmax: A has %d entries, want %d×%d", problems.ErrBadData, len(data.A), n, n)
	}
	for i, v := range data.A {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: minmax: A[%d, %d] = %v", problems.ErrBadData, i/n, i%n, v)
		}
	}
	pr := &Problem{n: n, p: p, a: append([]float64(nil), data.A...), St: stiefel.New(n, p), SPD: spd.New(p), eig: lapackx.NewEigSym(p),
		ax: make([]float64, n*p), k: make([]float64, p*p), chol: make([]float64, p*p), linv: make([]float64, p*p),
		ky: make([]float64, p*p), hg: make([]float64, p*p), hh: make([]float64, p*p), hl: make([]float64, p),
		np:  make([]float64, n*p),
		kAt: solver.Memo{On: solver.OnX}, cholAt: solver.Memo{On: solver.OnY}, liAt: solver.Memo{On: solver.OnY},
		kyAt: solver.Memo{On: solver.OnX | solver.OnY}, hinvAt: solver.Memo{On: solver.OnX | solver.OnY}}
	pr.SPD.Retraction = spd.Exponential // Algorithm 3's; see the package documentation
	if err := problems.SymmetrizeInput(&pr.notes, "A", pr.a, n); err != nil {
		return nil, fmt.Errorf("minmax: %w", err)
	}
	for i := range pr.pp {
		pr.pp[i] = make([]float64, p*p)
	}
	// XᵀAX must be positive definite for every X: A must be.
	e := lapackx.NewEigSym(n)
	if err := e.Factorize(pr.a); err != nil {
		return nil, fmt.Errorf("%w: minmax: A: %w", problems.ErrBadData, err)
	}
	pr.lam, pr.vec = append([]float64(nil), e.Values()...), append([]float64(nil), e.Vectors()...)
	if !(pr.lam[0] > float64(n)*0x1p-52*pr.lam[n-1]) {
		return nil, fmt.Errorf("%w: minmax: A is not positive definite (λ_min = %.3g, λ_max = %.3g): %w",
			problems.ErrBadData, pr.lam[0], pr.lam[n-1], numerr.ErrNotPosDef)
	}
	return pr, nil
}

// Notes returns one-line remarks on what New did to the data: an A
// within float32 rounding of symmetric, symmetrized.
func (pr *Problem) Notes() []string { return slices.Clone(pr.notes) }

// Dims returns n and p.
func (pr *Problem) Dims() (n, p int) { return pr.n, pr.p }

// Solution returns the known answer from the eigendecomposition of A:
// F* = −p − Σ_{i≤p} log λ_i, a minimizer X* (the eigenvectors of the p
// largest eigenvalues, n×p, in descending order of λ) and Y*(X*) =
// diag(1/λ_1, …, 1/λ_p). The gap λ_p − λ_{p+1} (zero: the optimal subspace
// is not unique) is returned too.
func (pr *Problem) Solution() (fstar float64, xs, ys []float64, gap float64) {
	n, p := pr.n, pr.p
	xs, ys = make([]float64, n*p), make([]float64, p*p)
	fstar = -float64(p)
	for j := 0; j < p; j++ {
		k := n - 1 - j // the j-th largest
		fstar -= math.Log(pr.lam[k])
		ys[j*p+j] = 1 / pr.lam[k]
		for i := 0; i < n; i++ {
			xs[i*p+j] = pr.vec[k*n+i]
		}
	}
	return fstar, xs, ys, pr.lam[n-p] - pr.lam[n-p-1]
}

// Start returns the starting point: X0 random on St(n, p) from seed and
// Y0 = I/λ_max(X0ᵀAX0), so that the eigenvalues of K Y0 lie in (0, 1],
// where the lower iteration converges for every η_y ≤ 1 (package
// documentation).
func (pr *Problem) Start(seed uint64) (x, y []float64) {
	n, p := pr.n, pr.p
	x, y = make([]float64, n*p), make([]float64, p*p)
	pr.St.RandPoint(x, rand.New(rand.NewPCG(seed, 1)))
	if err := pr.ScaledIdentity(y, x); err != nil {
		panic(err) // a random point of St(n, p) and a positive definite A
	}
	return x, y
}

// StartAt returns the starting point for a start a data file may hold:
// its parts, each projected onto its manifold when it is within float32
// rounding of it (problems.SnapStart, noted in notes); without X0, Start's
// random X0 from seed, and without Y0, Y0 = I/λ_max(X0ᵀAX0)
// (ScaledIdentity). path names the file in errors.
func (pr *Problem) StartAt(st problems.Start, seed uint64, notes *[]string, path string) (x0, y0 []float64, err error) {
	if err := problems.SnapStart(notes, st, pr.St, pr.SPD, "X0", "Y0"); err != nil {
		return nil, nil, fmt.Errorf("minmax: %s: %w", path, err)
	}
	x0, y0 = st.Or(pr.Start(seed))
	if st.Y != nil {
		return x0, y0, nil
	}
	if err := pr.ScaledIdentity(y0, x0); err != nil {
		return nil, nil, fmt.Errorf("%w: X0: %w", problems.ErrBadData, err)
	}
	return x0, y0, nil
}

// ScaledIdentity sets y = I/λ_max(XᵀAX) (see Start); x must be a point of
// St(n, p).
func (pr *Problem) ScaledIdentity(y, x []float64) error {
	if err := pr.St.CheckPoint(x); err != nil {
		return fmt.Errorf("minmax: X: %w", err)
	}
	p := pr.p
	k := pr.pp[0]
	pr.kOf(k, pr.np, x)
	e := lapackx.NewEigSym(p)
	if err := e.FactorizeValues(k); err != nil {
		return fmt.Errorf("minmax: XᵀAX: %w", err)
	}
	clear(y)
	s := 1 / e.Values()[p-1]
	for i := 0; i < p; i++ {
		y[i*p+i] = s
	}
	return nil
}

func (pr *Problem) mul(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas.Impl().Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// kOf sets ax = A X and k = XᵀAX, exactly symmetric.
func (pr *Problem) kOf(k, ax, x []float64) {
	n, p := pr.n, pr.p
	pr.mul(gblas.NoTrans, gblas.NoTrans, n, p, n, 1, pr.a, n, x, p, 0, ax, p)
	pr.mul(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, ax, p, 0, k, p)
	lapackx.Symmetrize(k, p)
}

// kx returns AX and K = XᵀAX, computed once per X.
func (pr *Problem) kx(pt *solver.Point) (ax, k []float64) {
	if !pr.kAt.Valid(pt) {
		pr.kAt.Reset()
		pr.kOf(pr.k, pr.ax, pt.X)
		pr.kAt.Store(pt)
	}
	return pr.ax, pr.k
}

// factor returns the Cholesky factor L of Y (upper part zero) and
// log det Y, computed once per Y.
func (pr *Problem) factor(pt *solver.Point) ([]float64, float64, error) {
	if !pr.cholAt.Valid(pt) {
		pr.cholAt.Reset()
		p, l := pr.p, pr.chol
		if lapackx.Cholesky(l, pt.Y, p) != nil {
			return nil, 0, errNotPD
		}
		var ld float64
		for i := 0; i < p; i++ {
			ld += 2 * math.Log(l[i*p+i])
		}
		if math.IsNaN(ld) || math.IsInf(ld, 0) {
			return nil, 0, fmt.Errorf("minmax: %w: log det Y = %v", numerr.ErrNotFinite, ld)
		}
		pr.logdet = ld
		pr.cholAt.Store(pt)
	}
	return pr.chol, pr.logdet, nil
}

// errNotPD is the error of a lower iterate that is not positive definite.
var errNotPD = fmt.Errorf("minmax: %w: Y (Cholesky factorization failed)", numerr.ErrNotPosDef)

// linvOf returns L⁻¹ for Y = LLᵀ, computed once per Y.
func (pr *Problem) linvOf(pt *solver.Point) ([]float64, error) {
	if !pr.liAt.Valid(pt) {
		pr.liAt.Reset()
		l, _, err := pr.factor(pt)
		if err != nil {
			return nil, err
		}
		lapackx.InvLower(pr.linv, l, pr.p)
		pr.liAt.Store(pt)
	}
	return pr.linv, nil
}

// kyOf returns KY, computed once per (X, Y).
func (pr *Problem) kyOf(pt *solver.Point) []float64 {
	if !pr.kyAt.Valid(pt) {
		pr.kyAt.Reset()
		p := pr.p
		_, k := pr.kx(pt)
		pr.mul(gblas.NoTrans, gblas.NoTrans, p, p, p, 1, k, p, pt.Y, p, 0, pr.ky, p)
		pr.kyAt.Store(pt)
	}
	return pr.ky
}

// F returns f(X, Y) = log det Y − ⟨Y, XᵀAX⟩.
func (pr *Problem) F(pt *solver.Point) (float64, error) {
	_, ld, err := pr.factor(pt)
	if err != nil {
		return 0, err
	}
	_, k := pr.kx(pt)
	var s float64
	for i, v := range k {
		s += v * pt.Y[i]
	}
	return ld - s, nil
}

// GradFx sets dst = P_X(−2 A X Y).
func (pr *Problem) GradFx(dst []float64, pt *solver.Point) error {
	n, p := pr.n, pr.p
	ax, _ := pr.kx(pt)
	pr.mul(gblas.NoTrans, gblas.NoTrans, n, p, p, -2, ax, p, pt.Y, p, 0, pr.np, p)
	pr.St.Project(dst, pt.X, pr.np)
	return nil
}

// GradFy sets dst = Y − Y K Y, exactly symmetric.
func (pr *Problem) GradFy(dst []float64, pt *solver.Point) error {
	p := pr.p
	_, k := pr.kx(pt)
	m := pr.pp[0]
	copy(m, k)
	lapackx.Congruence(dst, pt.Y, m, pr.pp[1], p, false)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v := 0.5*(pt.Y[i*p+j]+pt.Y[j*p+i]) - dst[i*p+j]
			dst[i*p+j], dst[j*p+i] = v, v
		}
	}
	return nil
}

// HessGy sets dst = sym(U K Y), the Hessian of g = −f in Y.
func (pr *Problem) HessGy(dst []float64, pt *solver.Point, u []float64) error {
	p := pr.p
	ky := pr.kyOf(pt)
	pr.mul(gblas.NoTrans, gblas.NoTrans, p, p, p, 1, u, p, ky, p, 0, dst, p)
	lapackx.Symmetrize(dst, p)
	return nil
}

// CrossGxy sets dst = P_X(2 A X V), the cross derivative of g = −f.
func (pr *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	n, p := pr.n, pr.p
	ax, _ := pr.kx(pt)
	pr.mul(gblas.NoTrans, gblas.NoTrans, n, p, p, 2, ax, p, v, p, 0, pr.np, p)
	pr.St.Project(dst, pt.X, pr.np)
	return nil
}

// CrossGyx sets dst = Y (UᵀAX + XᵀAU) Y, the adjoint of CrossGxy.
func (pr *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	n, p := pr.n, pr.p
	ax, _ := pr.kx(pt)
	d := pr.pp[0]
	pr.mul(gblas.Trans, gblas.NoTrans, p, p, n, 1, u, p, ax, p, 0, d, p)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v := d[i*p+j] + d[j*p+i]
			d[i*p+j], d[j*p+i] = v, v
		}
	}
	lapackx.Congruence(dst, pt.Y, d, pr.pp[1], p, false)
	return nil
}

// hinv prepares the inverse Hessian at (X, Y): with Y = LLᵀ and
// S = LᵀKL = QᵀΛQ (rows of Q the eigenvectors), G = Q L⁻¹, H = L Qᵀ and Λ.
func (pr *Problem) hinv(pt *solver.Point) error {
	if pr.hinvAt.Valid(pt) {
		return nil
	}
	pr.hinvAt.Reset()
	p := pr.p
	l, _, err := pr.factor(pt)
	if err != nil {
		return err
	}
	li, err := pr.linvOf(pt)
	if err != nil {
		return err
	}
	_, k := pr.kx(pt)
	s := pr.pp[2]
	copy(s, k)
	lapackx.Congruence(s, l, s, pr.pp[3], p, true)
	if err := pr.eig.Factorize(s); err != nil {
		return fmt.Errorf("minmax: inverse Hessian: %w", err)
	}
	copy(pr.hl, pr.eig.Values())
	q := pr.eig.Vectors()
	pr.mul(gblas.NoTrans, gblas.NoTrans, p, p, p, 1, q, p, li, p, 0, pr.hg, p)
	pr.mul(gblas.NoTrans, gblas.Trans, p, p, p, 1, l, p, q, p, 0, pr.hh, p)
	pr.hinvAt.Store(pt)
	return nil
}

// HessGyInv sets dst = H_Y g⁻¹[V] = H [(2 G V Gᵀ) ⊘ (λ_i + λ_j)] Hᵀ (see
// the package documentation): one p×p eigendecomposition per point, two
// congruences per call.
func (pr *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	if err := pr.hinv(pt); err != nil {
		return err
	}
	p := pr.p
	r := pr.pp[0]
	copy(r, v)
	lapackx.Symmetrize(r, p)
	lapackx.Congruence(r, pr.hg, r, pr.pp[1], p, false)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			r[i*p+j] *= 2 / (pr.hl[i] + pr.hl[j])
		}
	}
	lapackx.Congruence(dst, pr.hh, r, pr.pp[1], p, false)
	return nil
}

// MinMax returns the min-max form, f with its gradients on St(n, p) ×
// SPD(p), for solver.MinMax.
func (pr *Problem) MinMax() solver.Problem {
	return solver.Problem{Mx: pr.St, My: pr.SPD, F: pr.F, GradFx: pr.GradFx, GradFy: pr.GradFy}
}

// Bilevel returns the bilevel form solver.MinMax(pr.MinMax()), g = −f,
// with the exact second-order oracles of g added (HessGy, CrossGxy,
// CrossGyx, HessGyInv), so that every estimator runs on it: GDA (the
// paper's Algorithm 3) and the hypergradient estimators HINV, CG, NS and AD.
func (pr *Problem) Bilevel() solver.Problem {
	q := solver.MinMax(pr.MinMax())
	q.HessGy, q.CrossGxy, q.CrossGyx, q.HessGyInv = pr.HessGy, pr.CrossGxy, pr.CrossGyx, pr.HessGyInv
	q.LowerSolve = pr.LowerSolve
	return q
}

// LowerSolve sets dst to the lower solution Y*(X) = (XᵀAX)⁻¹, where
// g = ⟨Y, XᵀAX⟩ − log det Y has its Euclidean gradient XᵀAX − Y⁻¹
// vanish, by a Cholesky factorization.
func (pr *Problem) LowerSolve(dst []float64, pt *solver.Point) error {
	p := pr.p
	_, k := pr.kx(pt)
	l := pr.pp[2]
	if err := lapackx.Cholesky(l, k, p); err != nil {
		return fmt.Errorf("minmax: lower solution: XᵀAX: %w", err)
	}
	lapackx.CholInverse(dst, pr.pp[3], l, p)
	return nil
}
