package coupling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
)

// Errors: the package's own sentinels below, each also matching the
// numerr sentinel named beside it, and the shared numerr.ErrNotFinite and
// numerr.ErrUnderflow.
var (
	// ErrBadMarginal signifies a marginal with a non-positive or
	// non-finite entry, or marginals of unequal mass (numerr.ErrInvalid).
	ErrBadMarginal = numerr.New(numerr.ErrInvalid, "coupling: bad marginal")
	// ErrNotPositive signifies a plan with an entry ≤ 0 (numerr.ErrInvalid).
	ErrNotPositive = numerr.New(numerr.ErrInvalid, "coupling: plan entry not positive")
	// ErrMarginal signifies a plan or tangent whose row or column sums are
	// off by more than Tol (numerr.ErrInvalid).
	ErrMarginal = numerr.New(numerr.ErrInvalid, "coupling: marginal constraint violated")
	// ErrSinkhornNotConverged signifies a retraction whose balancing did not
	// reach Sinkhorn.Tol within Sinkhorn.MaxIter iterations
	// (numerr.ErrNotConverged).
	ErrSinkhornNotConverged = numerr.New(numerr.ErrNotConverged, "coupling: Sinkhorn did not converge")
	// ErrBadSetting signifies a setting out of range: a NaN, infinite or
	// negative tolerance, or a negative iteration cap (numerr.ErrInvalid).
	ErrBadSetting = numerr.New(numerr.ErrInvalid, "coupling: bad setting")
)

// minIndependent is the smallest entry New accepts in the independent
// plan a bᵀ/Σa: marginals so lopsided that it underflows leave no plan
// whose entries all stay in the float64 range with room for the Sinkhorn
// scalings.
const minIndependent = 1e-290

// MassTol is the relative tolerance on |Σa − Σb| that New accepts as it
// is; up to float32 rounding (lapackx.F32Tol of the larger marginal's
// length) New rescales b to Σa, with a note (Notes).
const MassTol = 1e-12

// DefaultTol is the default relative tolerance of CheckPoint and
// CheckTangent on the marginal constraints.
const DefaultTol = 1e-10

// SinkhornSettings control the retraction's balancing. Zero values take
// the defaults; see CheckSettings for the valid range.
type SinkhornSettings struct {
	// MaxIter bounds the balancing iterations, ≥ 0; default
	// DefaultSinkhornMaxIter, 10000: steps
	// that POT's Sinkhorn balances within its default 1000 iterations (to
	// its looser default threshold) take up to about twice as many here.
	MaxIter int
	// Tol is the relative L1 marginal error to reach,
	// (‖Γ1 − a‖₁ + ‖Γᵀ1 − b‖₁)/Σa, finite and ≥ 0; default
	// DefaultSinkhornTol, 1e−13.
	Tol float64
}

// The defaults of SinkhornSettings, which its zero fields stand for.
const (
	DefaultSinkhornMaxIter = 10000
	DefaultSinkhornTol     = 1e-13
)

// CGSettings control the projection's conjugate gradient solve. Zero
// values take the defaults; see CheckSettings for the valid range.
type CGSettings struct {
	// MaxIter bounds the iterations, ≥ 0; default 10(m+n).
	MaxIter int
	// Tol is the relative residual to reach, finite and ≥ 0; default
	// 1e−14.
	Tol float64
}

// Coupling is Π(a, b). Points and tangent vectors are row-major m×n
// []float64.
type Coupling struct {
	m, n int
	a, b []float64
	mass float64

	// Sinkhorn controls the retraction.
	Sinkhorn SinkhornSettings
	// CG controls the projection.
	CG CGSettings
	// Tol is the relative tolerance of CheckPoint and CheckTangent, finite
	// and ≥ 0. Zero means DefaultTol for tangents and, for points,
	// max(DefaultTol, 2·Sinkhorn.Tol): a point the retraction returns,
	// balanced to Sinkhorn.Tol, then passes CheckPoint whatever Sinkhorn.Tol
	// the caller chose (twice it, for the rounding of the plan's sums).
	Tol float64

	lastMarginal float64 // marginal error of the last retraction
	logK         bool    // the retraction's kernel input is in the log domain
	notes        []string
	lastCGIter   int
	lastCGRes    float64

	// scratch
	mn1, mn2         []float64 // m×n
	rs, cs           []float64 // row and column sums (m, n)
	z, r, p, q, d, w []float64 // CG vectors of length m+n
	alpha, beta      []float64 // views into the last solution
	f, g, u, v       []float64 // Sinkhorn potentials and scalings
	bf, bg, bu, bv   []float64 // best state
	logA, logB       []float64
}

// New returns Π(a, b), copying a and b. It returns an error wrapping
// ErrBadMarginal unless every entry is positive and finite and the masses
// agree within float32 rounding (lapackx.F32Tol(max(m, n)) relative);
// masses that differ by more than MassTol, as those of marginals computed
// or stored in float32 do, are made equal by rescaling b to Σa, and Notes
// says so.
func New(a, b []float64) (*Coupling, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("%w: empty marginal", ErrBadMarginal)
	}
	var sa, sb float64
	// a before b, so that the same bad input always gets the same error.
	for _, m := range []struct {
		name string
		v    []float64
	}{{"a", a}, {"b", b}} {
		for i, x := range m.v {
			if !(x > 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: %s[%d] = %v", ErrBadMarginal, m.name, i, x)
			}
		}
	}
	for _, x := range a {
		sa += x
	}
	for _, x := range b {
		sb += x
	}
	m, n := len(a), len(b)
	var notes []string
	if d := math.Abs(sa-sb) / math.Max(sa, sb); d > MassTol {
		if bound := lapackx.F32Tol(max(m, n)); !(d <= bound) {
			return nil, fmt.Errorf("%w: Σa = %.17g, Σb = %.17g differ by %.3g relative, beyond float32 rounding (%.3g)", ErrBadMarginal, sa, sb, d, bound)
		}
		notes = append(notes, fmt.Sprintf("marginals: Σa and Σb differ by %.2g relative, within float32 rounding (≤ %.2g): b rescaled to Σa", d, lapackx.F32Tol(max(m, n))))
		b = slices.Clone(b)
		for j := range b {
			b[j] *= sa / sb
		}
	}
	if lo := slices.Min(a) * slices.Min(b) / sa; !(lo >= minIndependent) {
		return nil, fmt.Errorf("%w: min a · min b / Σa = %.3g: the plans' entries would fall below the float64 range", ErrBadMarginal, lo)
	}
	c := &Coupling{m: m, n: n, a: append([]float64(nil), a...), b: append([]float64(nil), b...), mass: sa, notes: notes}
	vec := func(k int) []float64 { return make([]float64, k) }
	c.mn1, c.mn2 = vec(m*n), vec(m*n)
	c.rs, c.cs = vec(m), vec(n)
	c.z, c.r, c.p, c.q, c.d, c.w = vec(m+n), vec(m+n), vec(m+n), vec(m+n), vec(m+n), vec(m+n)
	c.f, c.g, c.u, c.v = vec(m), vec(n), vec(m), vec(n)
	c.bf, c.bg, c.bu, c.bv = vec(m), vec(n), vec(m), vec(n)
	c.logA, c.logB = vec(m), vec(n)
	for i, x := range c.a {
		c.logA[i] = logPos(x)
	}
	for j, x := range c.b {
		c.logB[j] = logPos(x)
	}
	return c, nil
}

// Notes returns one-line remarks on what New did to the marginals (b
// rescaled to Σa when the masses differed by float32 rounding), or nil.
func (c *Coupling) Notes() []string { return slices.Clone(c.notes) }

// Clone returns an independent *Coupling with the same marginals and
// settings.
func (c *Coupling) Clone() any {
	d, err := New(c.a, c.b)
	if err != nil {
		panic(err) // validated already
	}
	d.Sinkhorn, d.CG, d.Tol = c.Sinkhorn, c.CG, c.Tol
	return d
}

// CheckSettings returns an error wrapping ErrBadSetting (and so
// numerr.ErrInvalid) that names the first setting out of range: a
// tolerance (Sinkhorn.Tol, CG.Tol, Tol) that is NaN, infinite or negative,
// or an iteration cap (Sinkhorn.MaxIter, CG.MaxIter) that is negative.
// Zero means the default for each. The settings are exported fields, so
// they are checked where they are used: Retract, CheckPoint and
// CheckTangent return this error (the solver sees it when it checks its
// start points); Project and the methods built on it (EGradToRGrad,
// EHessToRHess, ConnectionTerm, Transport, RandTangent), which have no
// error result, panic with it when CG's settings are out of range, as
// they do for slices of the wrong length. A NaN tolerance would otherwise
// pass a `tol ≤ 0` default test and then fail every `err ≤ tol` stopping
// test, or an infinite one stop at the first iteration: a wrong answer
// with no error.
func (c *Coupling) CheckSettings() error {
	if err := c.checkCG(); err != nil {
		return err
	}
	switch {
	case c.Sinkhorn.MaxIter < 0:
		return fmt.Errorf("%w: Sinkhorn.MaxIter = %d, want ≥ 0 (0: default %d)", ErrBadSetting, c.Sinkhorn.MaxIter, DefaultSinkhornMaxIter)
	case badTol(c.Sinkhorn.Tol):
		return fmt.Errorf("%w: Sinkhorn.Tol = %v, want finite and ≥ 0 (0: default %g)", ErrBadSetting, c.Sinkhorn.Tol, DefaultSinkhornTol)
	case badTol(c.Tol):
		return fmt.Errorf("%w: Tol = %v, want finite and ≥ 0 (0: DefaultTol)", ErrBadSetting, c.Tol)
	}
	return nil
}

// checkCG checks the projection's settings.
func (c *Coupling) checkCG() error {
	switch {
	case c.CG.MaxIter < 0:
		return fmt.Errorf("%w: CG.MaxIter = %d, want ≥ 0 (0: default 10(m+n))", ErrBadSetting, c.CG.MaxIter)
	case badTol(c.CG.Tol):
		return fmt.Errorf("%w: CG.Tol = %v, want finite and ≥ 0 (0: default 1e-14)", ErrBadSetting, c.CG.Tol)
	}
	return nil
}

// badTol reports a tolerance that is NaN, infinite or negative.
func badTol(t float64) bool { return !(t >= 0 && t <= math.MaxFloat64) }

// check panics unless every slice of v has the length of a point.
func (c *Coupling) check(v ...[]float64) {
	manifold.CheckLen("coupling: dimension mismatch", c.m*c.n, v...)
}

// Dims returns m and n.
func (c *Coupling) Dims() (r, cols int) { return c.m, c.n }

// Len returns m·n.
func (c *Coupling) Len() int { return c.m * c.n }

// Dim returns (m−1)(n−1).
func (c *Coupling) Dim() int { return (c.m - 1) * (c.n - 1) }

// Marginals returns copies of a and b.
func (c *Coupling) Marginals() (a, b []float64) {
	return append([]float64(nil), c.a...), append([]float64(nil), c.b...)
}

// Inner returns Σ U_ij V_ij / Γ_ij.
func (c *Coupling) Inner(x, u, v []float64) float64 {
	c.check(x, u, v)
	return manifold.FisherInner(x, u, v)
}

// Norm returns ‖U‖_Γ.
func (c *Coupling) Norm(x, u []float64) float64 { return math.Sqrt(c.Inner(x, u, u)) }

// LastMarginalError returns the relative L1 marginal error reached by the
// last retraction.
func (c *Coupling) LastMarginalError() float64 { return c.lastMarginal }

// LastCG returns the iterations and the relative residual of the last
// projection's conjugate gradient solve.
func (c *Coupling) LastCG() (iters int, residual float64) { return c.lastCGIter, c.lastCGRes }

// applyK sets out = K (α; β) = (diag(rs)α + Γβ; Γᵀα + diag(cs)β).
func (c *Coupling) applyK(out, in, x []float64) {
	m, n := c.m, c.n
	al, be := in[:m], in[m:]
	impl := blas.Impl()
	impl.Dgemv(gblas.NoTrans, m, n, 1, x, n, be, 1, 0, out[:m], 1)
	impl.Dgemv(gblas.Trans, m, n, 1, x, n, al, 1, 0, out[m:], 1)
	for i, s := range c.rs {
		out[i] += s * al[i]
	}
	for j, s := range c.cs {
		out[m+j] += s * be[j]
	}
}

// multipliers solves K (α; β) = (Z1; Zᵀ1) by preconditioned conjugate
// gradients, leaving α and β in c.alpha and c.beta.
func (c *Coupling) multipliers(x, z []float64) {
	m, n := c.m, c.n
	// Row and column sums of the point and of Z.
	for i := 0; i < m; i++ {
		var s, t float64
		row, zr := x[i*n:(i+1)*n], z[i*n:(i+1)*n]
		for j, v := range row {
			s += v
			t += zr[j]
		}
		c.rs[i], c.r[i] = s, t
	}
	clear(c.cs)
	clear(c.r[m:])
	for i := 0; i < m; i++ {
		row, zr := x[i*n:(i+1)*n], z[i*n:(i+1)*n]
		for j, v := range row {
			c.cs[j] += v
			c.r[m+j] += zr[j]
		}
	}
	// PCG from 0 with the diagonal preconditioner diag(rs, cs). Rounding
	// gives the right-hand side (and later the residual) a component along
	// the null vector (1; −1), which no (α, β) can match and along which CG
	// would let the solution grow without bound: it is removed at every
	// step, and the solution's own null component at the end (it does not
	// change α_i + β_j, but a large one would cost their precision).
	sol, res, pre, dir, kd := c.z, c.r, c.d, c.p, c.q
	clear(sol)
	c.deflate(res)
	bnorm := norm2(res)
	if err := c.checkCG(); err != nil {
		panic(err) // documented misuse: Project has no error result
	}
	maxIter, tol := c.CG.MaxIter, c.CG.Tol
	if maxIter == 0 {
		maxIter = 10 * (m + n)
	}
	if tol == 0 {
		tol = 1e-14
	}
	c.alpha, c.beta = sol[:m], sol[m:]
	c.lastCGIter, c.lastCGRes = 0, 0
	if bnorm == 0 {
		return
	}
	c.precond(pre, res)
	copy(dir, pre)
	rz := floats.Dot(res, pre)
	for it := 1; it <= maxIter; it++ {
		c.applyK(kd, dir, x)
		pkp := floats.Dot(dir, kd)
		if !(pkp > 0) {
			break // the residual reached the null space: done
		}
		step := rz / pkp
		for i := range sol {
			sol[i] += step * dir[i]
			res[i] -= step * kd[i]
		}
		c.deflate(res)
		c.lastCGIter = it
		c.lastCGRes = norm2(res) / bnorm
		if c.lastCGRes <= tol {
			break
		}
		c.precond(pre, res)
		rzNew := floats.Dot(res, pre)
		beta := rzNew / rz
		rz = rzNew
		for i := range dir {
			dir[i] = pre[i] + beta*dir[i]
		}
	}
	c.deflate(sol)
}

// deflate removes from the (m+n)-vector v its component along the null
// vector (1; −1) of the multiplier system.
func (c *Coupling) deflate(v []float64) {
	m := c.m
	var s float64
	for i, x := range v {
		if i < m {
			s += x
		} else {
			s -= x
		}
	}
	s /= float64(len(v))
	for i := range v {
		if i < m {
			v[i] -= s
		} else {
			v[i] += s
		}
	}
}

func (c *Coupling) precond(dst, src []float64) {
	m := c.m
	for i, s := range c.rs {
		dst[i] = src[i] / s
	}
	for j, s := range c.cs {
		dst[m+j] = src[m+j] / s
	}
}

// Project sets dst = Z − (α1ᵀ + 1βᵀ) ∘ Γ, the Fisher-orthogonal projection
// onto the tangent space at Γ = x. dst may be z.
func (c *Coupling) Project(dst, x, z []float64) {
	c.check(dst, x, z)
	c.multipliers(x, z)
	c.subtractNormal(dst, z, x)
}

// subtractNormal sets dst = z − (α1ᵀ + 1βᵀ) ∘ w with the last multipliers.
func (c *Coupling) subtractNormal(dst, z, w []float64) {
	n := c.n
	for i, al := range c.alpha {
		zr, wr, dr := z[i*n:(i+1)*n], w[i*n:(i+1)*n], dst[i*n:(i+1)*n]
		for j, be := range c.beta {
			dr[j] = zr[j] - (al+be)*wr[j]
		}
	}
}

// EGradToRGrad sets dst = P_Γ(Γ ∘ G).
func (c *Coupling) EGradToRGrad(dst, x, egrad []float64) {
	c.check(dst, x, egrad)
	for i, g := range x {
		c.mn1[i] = g * egrad[i]
	}
	c.Project(dst, x, c.mn1)
}

// EHessToRHess sets dst = P_Γ(Γ ∘ H + ½ ξ ∘ (G − α1ᵀ − 1βᵀ)) for the
// Euclidean gradient G, Hessian-vector product H = ∇²f[ξ] and tangent ξ = u,
// with (α, β) the multipliers of the gradient's projection.
func (c *Coupling) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	c.check(dst, x, egrad, ehess, u)
	n := c.n
	for i, g := range x {
		c.mn1[i] = g * egrad[i]
	}
	c.multipliers(x, c.mn1)
	for i, al := range c.alpha {
		for j, be := range c.beta {
			k := i*n + j
			c.mn2[k] = x[k]*ehess[k] + 0.5*u[k]*(egrad[k]-al-be)
		}
	}
	c.Project(dst, x, c.mn2)
}

// ConnectionTerm sets dst = −½ P_X(U ∘ V ⊘ X), the term of the
// Levi-Civita connection of the Fisher metric, ∇_U V = P_X(DV[U] −
// ½ U ∘ V ⊘ X) (the orthant's Christoffel symbols Γ^i_ii = −1/2x_i, then
// the projection). dst may alias u or v.
func (c *Coupling) ConnectionTerm(dst, x, u, v []float64) {
	c.check(dst, x, u, v)
	for i, g := range x {
		c.mn2[i] = -0.5 * u[i] * v[i] / g
	}
	c.Project(dst, x, c.mn2)
}

// Transport sets dst = P_Y(U), the transport by projection. dst may be u.
func (c *Coupling) Transport(dst, x, y, u []float64) { c.Project(dst, y, u) }

// RandPoint sets dst to the balancing of a matrix with log-normal entries
// (with the default Sinkhorn settings, not c.Sinkhorn), or to the
// independent plan a bᵀ/Σa should that fail; it does not panic.
func (c *Coupling) RandPoint(dst []float64, rnd *rand.Rand) {
	c.check(dst)
	for i := range c.mn2 {
		c.mn2[i] = rnd.NormFloat64()
	}
	// The default balancing, whatever the retraction's settings: a bounded
	// kernel balances within them. Should it not, the independent plan is
	// a point too.
	saved := c.Sinkhorn
	c.Sinkhorn = SinkhornSettings{}
	err := c.balance(dst, c.mn2)
	c.Sinkhorn = saved
	if err != nil || c.CheckPoint(dst) != nil {
		for i, ai := range c.a {
			for j, bj := range c.b {
				dst[i*c.n+j] = ai * bj / c.mass
			}
		}
	}
}

// RandTangent sets dst to a random unit tangent vector at x.
func (c *Coupling) RandTangent(dst, x []float64, rnd *rand.Rand) {
	c.check(dst, x)
	for i, g := range x {
		c.mn2[i] = g * rnd.NormFloat64()
	}
	c.Project(dst, x, c.mn2)
	if nrm := c.Norm(x, dst); nrm > 0 {
		for i := range dst {
			dst[i] /= nrm
		}
	}
}

func (c *Coupling) tol() float64 {
	if c.Tol != 0 {
		return c.Tol // CheckPoint and CheckTangent have checked it
	}
	return DefaultTol
}

// pointTol is CheckPoint's tolerance: Tol, or by default one that accepts
// the retraction's own results (see Tol).
func (c *Coupling) pointTol() float64 {
	if c.Tol != 0 {
		return c.Tol
	}
	return math.Max(DefaultTol, 2*c.sinkhornTol())
}

// sinkhornTol is the retraction's effective Sinkhorn.Tol.
func (c *Coupling) sinkhornTol() float64 {
	if c.Sinkhorn.Tol != 0 {
		return c.Sinkhorn.Tol
	}
	return DefaultSinkhornTol
}

// CheckPoint returns an error unless x is finite, positive and has row sums
// a and column sums b within Tol·Σa (by default, as the retraction's
// Sinkhorn.Tol allows; see Tol); or CheckSettings' error.
func (c *Coupling) CheckPoint(x []float64) error {
	if err := c.CheckSettings(); err != nil {
		return err
	}
	m, n := c.m, c.n
	if len(x) != m*n {
		return fmt.Errorf("coupling: point has length %d, want %d×%d", len(x), m, n)
	}
	for k, v := range x {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("coupling: %w: Γ[%d,%d] = %v", numerr.ErrNotFinite, k/n, k%n, v)
		case v <= 0:
			return fmt.Errorf("%w: Γ[%d,%d] = %v", ErrNotPositive, k/n, k%n, v)
		}
	}
	if e, tol := c.marginalError(x, c.a, c.b), c.pointTol(); e > tol*c.mass {
		return fmt.Errorf("%w: ‖Γ1 − a‖₁ + ‖Γᵀ1 − b‖₁ = %.3g > %.3g·Σa", ErrMarginal, e, tol)
	}
	return nil
}

// CheckTangent returns an error unless u is finite with row and column
// sums zero within Tol·Σ|U|; or CheckSettings' error.
func (c *Coupling) CheckTangent(x, u []float64) error {
	if err := c.CheckSettings(); err != nil {
		return err
	}
	m, n := c.m, c.n
	if len(u) != m*n {
		return fmt.Errorf("coupling: tangent has length %d, want %d×%d", len(u), m, n)
	}
	var abs float64
	for k, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coupling: %w: U[%d,%d] = %v", numerr.ErrNotFinite, k/n, k%n, v)
		}
		abs += math.Abs(v)
	}
	if e := c.marginalError(u, nil, nil); e > c.tol()*abs {
		return fmt.Errorf("%w: tangent sums ‖U1‖₁ + ‖Uᵀ1‖₁ = %.3g > %.3g·Σ|U|", ErrMarginal, e, c.tol())
	}
	return nil
}

// marginalError returns ‖X1 − a‖₁ + ‖Xᵀ1 − b‖₁ (a, b nil meaning zero).
func (c *Coupling) marginalError(x, a, b []float64) float64 {
	m, n := c.m, c.n
	var e float64
	cs := c.cs
	clear(cs)
	for i := 0; i < m; i++ {
		var s float64
		for j, v := range x[i*n : (i+1)*n] {
			s += v
			cs[j] += v
		}
		if a != nil {
			s -= a[i]
		}
		e += math.Abs(s)
	}
	for j, s := range cs {
		if b != nil {
			s -= b[j]
		}
		e += math.Abs(s)
	}
	return e
}

func norm2(a []float64) float64 { return math.Sqrt(floats.Dot(a, a)) }
