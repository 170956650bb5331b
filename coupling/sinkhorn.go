package coupling

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

// scaleBound: a scaling outside [1/scaleBound, scaleBound] is absorbed into
// the kernel's log-domain potentials.
const scaleBound = 1e100

// Retract sets dst = Sinkhorn(Γ ∘ exp(tU ⊘ Γ)), Γ = x. dst may be x. It
// returns an error wrapping numerr.ErrNotFinite for non-finite input,
// ErrNotPositive for a plan entry ≤ 0,
// ErrSinkhornNotConverged (dst then holds the best plan found, and
// LastMarginalError its error) or numerr.ErrUnderflow, and CheckSettings'
// error (ErrBadSetting) for settings out of range.
//
// The kernel starts in the ordinary domain as Γ_ij exp(tU_ij/Γ_ij − s_i)
// with s_i the row's largest exponent, which cannot overflow; only when an
// entry would come within a few hundred orders of magnitude of underflow,
// or the scalings later leave their safe range, does it move to the log
// domain (one log per entry, then log-sum-exp steps).
func (c *Coupling) Retract(dst, x, u []float64, t float64) error {
	c.check(dst, x, u)
	if err := c.CheckSettings(); err != nil {
		return err
	}
	m, n := c.m, c.n
	q := c.mn2 // tU ⊘ Γ; log Γ + tU ⊘ Γ once in the log domain
	for k, g := range x {
		switch {
		case math.IsNaN(g) || math.IsInf(g, 0):
			return fmt.Errorf("coupling: %w: retraction at Γ[%d,%d] = %v", numerr.ErrNotFinite, k/n, k%n, g)
		case g <= 0:
			return fmt.Errorf("%w: retraction at Γ[%d,%d] = %v", ErrNotPositive, k/n, k%n, g)
		}
		v := t * u[k] / g
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coupling: %w: retraction step entry [%d,%d]: tU/Γ = %v", numerr.ErrNotFinite, k/n, k%n, v)
		}
		q[k] = v
	}
	kt := c.mn1
	fast := true
	for i := 0; i < m && fast; i++ {
		row := q[i*n : (i+1)*n]
		mx := row[0]
		for _, v := range row {
			if v > mx {
				mx = v
			}
		}
		c.f[i] = -mx
		xr, kr := x[i*n:(i+1)*n], kt[i*n:(i+1)*n]
		for j, v := range row {
			kr[j] = xr[j] * math.Exp(v-mx)
			if kr[j] < safeMin {
				fast = false
				break
			}
		}
	}
	clear(c.g)
	c.logK = false
	if fast {
		c.resetScalings()
	} else {
		c.toLogDomain(q, x)
		c.logStep(kt, q)
	}
	return c.iterate(dst, x, q)
}

// safeMin is the smallest kernel entry the ordinary domain accepts: far
// enough above underflow that the scalings can still move it.
const safeMin = 1e-280

// toLogDomain turns q = tU ⊘ Γ into log K = log Γ + tU ⊘ Γ.
func (c *Coupling) toLogDomain(q, x []float64) {
	for k, g := range x {
		q[k] += logPos(g)
	}
	c.logK = true
}

func (c *Coupling) resetScalings() {
	for i := range c.u {
		c.u[i] = 1
	}
	for j := range c.v {
		c.v[j] = 1
	}
}

// balance sets dst to diag(e^f) exp(logK) diag(e^g) with the potentials
// f, g chosen so that its marginals are a and b; logK is not modified. It
// starts with a log-domain step (see logStep) and iterates as Retract does.
func (c *Coupling) balance(dst, logK []float64) error {
	n := c.n
	for k, v := range logK {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coupling: %w: kernel log-entry [%d,%d] = %v", numerr.ErrNotFinite, k/n, k%n, v)
		}
	}
	clear(c.g)
	c.logK = true
	c.logStep(c.mn1, logK)
	return c.iterate(dst, nil, logK)
}

// iterate runs the scaling iterations on the kernel in c.mn1 (with
// potentials f, g and scalings u, v), writes the best plan to dst and
// reports convergence. q is log K when c.logK is set and tU ⊘ Γ otherwise,
// turned into log K (with x) the first time the log domain is needed.
func (c *Coupling) iterate(dst, x, q []float64) error {
	m, n := c.m, c.n
	// The settings were checked (CheckSettings) by the caller: a NaN or
	// infinite Tol, or a negative MaxIter, never reaches the defaults here.
	maxIter, tol := c.Sinkhorn.MaxIter, c.sinkhornTol()
	if maxIter == 0 {
		maxIter = DefaultSinkhornMaxIter
	}
	kt := c.mn1
	impl := blas.Impl()
	best, bestEpoch, epoch := math.Inf(1), 0, 0
	r := c.rs
	colSum := c.cs
	for it := 0; it <= maxIter; it++ {
		impl.Dgemv(gblas.NoTrans, m, n, 1, kt, n, c.v, 1, 0, r, 1)
		// Column sums are exact after a column update, so the row residual
		// is the marginal error... but for rounding, and except after an
		// absorption into the kernel, whose exponentials carry a relative
		// error ε·|log K| (1.4e−13 at |log K| ≈ 540, more than the default
		// Tol: the fuzz target found a plan 44% past Tol with a nil
		// error). So before stopping, the column residual is added.
		var e float64
		for i, ri := range r {
			e += math.Abs(c.u[i]*ri - c.a[i])
		}
		e /= c.mass
		if it > 0 && (e <= tol || it == maxIter) {
			impl.Dgemv(gblas.Trans, m, n, 1, kt, n, c.u, 1, 0, colSum, 1)
			var ec float64
			for j, s := range colSum {
				ec += math.Abs(c.v[j]*s - c.b[j])
			}
			e += ec / c.mass
		}
		if it > 0 && e < best {
			best, bestEpoch = e, epoch
			copy(c.bf, c.f)
			copy(c.bg, c.g)
			copy(c.bu, c.u)
			copy(c.bv, c.v)
		}
		if it > 0 && (e <= tol || it == maxIter) {
			break
		}
		for i, ri := range r {
			c.u[i] = c.a[i] / ri
		}
		impl.Dgemv(gblas.Trans, m, n, 1, kt, n, c.u, 1, 0, colSum, 1)
		for j, s := range colSum {
			c.v[j] = c.b[j] / s
		}
		switch st := scalingState(c.u, c.v); {
		case st == scalingsFine:
		case !c.logK:
			c.toLogDomain(q, x)
			fallthrough
		case st == scalingsExtreme:
			for i, s := range c.u {
				c.f[i] += logPos(s)
			}
			for j, s := range c.v {
				c.g[j] += logPos(s)
			}
			c.absorb(kt, q)
			epoch++
		default: // broken
			c.logStep(kt, q)
			epoch++
		}
	}
	c.lastMarginal = best
	if bestEpoch != epoch {
		copy(c.f, c.bf)
		copy(c.g, c.bg)
		if !c.logK {
			c.toLogDomain(q, x)
		}
		c.absorb(kt, q)
	}
	// K_ij·(u_i v_j): u_i v_j lies within [1e−200, 1e200], so only the
	// final product can fall below 2^−1022, where (u_i K_ij)·v_j could
	// pass through a deeper subnormal first and lose bits (a relative
	// error of 3e−10 on an entry of 4.6e−310, the fuzz target found).
	for i := 0; i < m; i++ {
		ui := c.bu[i]
		row, kr := dst[i*n:(i+1)*n], kt[i*n:(i+1)*n]
		for j, kv := range kr {
			row[j] = kv * (ui * c.bv[j])
		}
	}
	for k, v := range dst {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("coupling: %w: entry [%d,%d] = %v", numerr.ErrUnderflow, k/n, k%n, v)
		}
	}
	if best > tol {
		return fmt.Errorf("%w: relative marginal error %.3g > tolerance %.3g after %d iterations",
			ErrSinkhornNotConverged, best, tol, maxIter)
	}
	return nil
}

const (
	scalingsFine = iota
	scalingsExtreme
	scalingsBroken
)

func scalingState(u, v []float64) int {
	state := scalingsFine
	for _, s := range [2][]float64{u, v} {
		for _, x := range s {
			switch {
			case !(x > 0) || math.IsInf(x, 0):
				return scalingsBroken
			case x > scaleBound || x < 1/scaleBound:
				state = scalingsExtreme
			}
		}
	}
	return state
}

// logStep is one Sinkhorn step in the log domain from the current g:
// f_i = log a_i − LSE_j(logK_ij + g_j), then g_j = log b_j −
// LSE_i(logK_ij + f_i), each log-sum-exp shifted by its maximum so that no
// exponential overflows and the largest term is one. It leaves the kernel
// K̃ = exp(logK + f1ᵀ + 1gᵀ) in kt, built from the column pass's
// exponentials, and resets the scalings to one.
func (c *Coupling) logStep(kt, logK []float64) {
	m, n := c.m, c.n
	for i := 0; i < m; i++ {
		lr := logK[i*n : (i+1)*n]
		mx := math.Inf(-1)
		for j, v := range lr {
			mx = math.Max(mx, v+c.g[j])
		}
		var s float64
		for j, v := range lr {
			s += math.Exp(v + c.g[j] - mx)
		}
		c.f[i] = c.logA[i] - mx - math.Log(s)
	}
	colMax, colSum := c.cs, c.v
	for j := range colMax {
		colMax[j] = math.Inf(-1)
	}
	for i := 0; i < m; i++ {
		fi := c.f[i]
		for j, v := range logK[i*n : (i+1)*n] {
			colMax[j] = math.Max(colMax[j], v+fi)
		}
	}
	clear(colSum)
	for i := 0; i < m; i++ {
		fi := c.f[i]
		kr := kt[i*n : (i+1)*n]
		for j, v := range logK[i*n : (i+1)*n] {
			e := math.Exp(v + fi - colMax[j])
			kr[j] = e
			colSum[j] += e
		}
	}
	// g_j = log b_j − colMax_j − log colSum_j, and K̃_ij = kt_ij · b_j/colSum_j.
	for j, s := range colSum {
		c.g[j] = c.logB[j] - colMax[j] - math.Log(s)
		colSum[j] = c.b[j] / s
	}
	for i := 0; i < m; i++ {
		kr := kt[i*n : (i+1)*n]
		for j, sc := range colSum {
			kr[j] *= sc
		}
	}
	c.resetScalings()
}

// absorb sets kt = exp(logK + f1ᵀ + 1gᵀ) and resets the scalings to one.
func (c *Coupling) absorb(kt, logK []float64) {
	n := c.n
	for i, fi := range c.f {
		kr, lr := kt[i*n:(i+1)*n], logK[i*n:(i+1)*n]
		for j, gj := range c.g {
			kr[j] = math.Exp(lr[j] + fi + gj)
		}
	}
	c.resetScalings()
}

// logPos is math.Log, right for subnormal x too: Go's math.Log on amd64
// returns log 2^−1023 ≈ −709.09 for every x below 2^−1022
// (golang/go#56600), which put a plan entry that small into the log-domain
// kernel up to e^35 times too large. The scaling by 2^54 is exact.
func logPos(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}
