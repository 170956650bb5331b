package lapackx

import (
	"math"
	"testing"
)

// Jacobi eigensolvers in pure Go, kept only as rivals in BenchmarkEigDriver
// (driver=jacobi and driver=hestenes): their 6n³–9n³ flops per sweep, over
// six to eight sweeps, lose to tridiagonal QL at every order measured.

// jacobiMaxSweeps bounds the sweeps; quadratic convergence needs about
// ten at the orders benchmarked.
const jacobiMaxSweeps = 30

// jacobiCyclic is the two-sided cyclic Jacobi method on the symmetric n×n
// row-major a (overwritten, both triangles read): eigenvalues into w,
// unsorted, eigenvectors into the rows of v. A rotation is skipped when
// |a_pq| ≤ ε √|a_pp a_qq| (Demmel and Veselić's relative test); it
// reports false if sweeps run out.
func jacobiCyclic(a, w, v []float64, n int) bool {
	identity(v, n)
	const eps = 0x1p-53
	for sweep := 0; sweep < jacobiMaxSweeps; sweep++ {
		rotated := false
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				app, aqq := a[p*n+p], a[q*n+q]
				if math.Abs(apq) <= eps*math.Sqrt(math.Abs(app*aqq)) {
					continue
				}
				rotated = true
				c, s := jacobiRotation((aqq - app) / (2 * apq))
				// A ← Jᵀ A J: rows p and q, then the columns by symmetry.
				rotate(a[p*n:(p+1)*n], a[q*n:(q+1)*n], c, s)
				for k := 0; k < n; k++ {
					x, y := a[k*n+p], a[k*n+q]
					a[k*n+p], a[k*n+q] = c*x-s*y, s*x+c*y
				}
				rotate(v[p*n:(p+1)*n], v[q*n:(q+1)*n], c, s)
			}
		}
		if !rotated {
			for i := 0; i < n; i++ {
				w[i] = a[i*n+i]
			}
			return true
		}
	}
	return false
}

// jacobiOneSided is Hestenes' one-sided Jacobi method on the SPD n×n
// row-major a (overwritten): it rotates pairs of rows of U = A (and of V =
// I) until the rows of U are orthogonal, so that U = Λ V with the
// eigenvalues the row norms. Rows are skipped when |u_p·u_q| ≤
// ε ‖u_p‖ ‖u_q‖; it reports false if sweeps run out.
func jacobiOneSided(a, w, v []float64, n int) bool {
	identity(v, n)
	const eps = 0x1p-53
	for sweep := 0; sweep < jacobiMaxSweeps; sweep++ {
		rotated := false
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				up, uq := a[p*n:(p+1)*n], a[q*n:(q+1)*n]
				var alpha, beta, gamma float64
				for k, x := range up {
					y := uq[k]
					alpha += x * x
					beta += y * y
					gamma += x * y
				}
				if math.Abs(gamma) <= eps*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				c, s := jacobiRotation((beta - alpha) / (2 * gamma))
				rotate(up, uq, c, s)
				rotate(v[p*n:(p+1)*n], v[q*n:(q+1)*n], c, s)
			}
		}
		if !rotated {
			for i := 0; i < n; i++ {
				var s float64
				for _, x := range a[i*n : (i+1)*n] {
					s += x * x
				}
				w[i] = math.Sqrt(s)
			}
			return true
		}
	}
	return false
}

// jacobiRotation returns the cosine and sine of the rotation that zeroes
// an off-diagonal entry with cot 2θ = theta, by Rutishauser's formulas
// (t = tan θ, the smaller root).
func jacobiRotation(theta float64) (c, s float64) {
	t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
	if theta < 0 {
		t = -t
	}
	c = 1 / math.Sqrt(t*t+1)
	return c, t * c
}

// rotate applies the plane rotation (c, s) to the vectors x and y:
// x ← c x − s y, y ← s x + c y.
func rotate(x, y []float64, c, s float64) {
	for k, a := range x {
		b := y[k]
		x[k], y[k] = c*a-s*b, s*a+c*b
	}
}

func identity(v []float64, n int) {
	clear(v)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
}

// TestJacobiRivals checks the benchmark's Jacobi solvers by their
// residual and orthogonality on SPD matrices, so that their timings are of
// correct solvers. Their orthogonality is worse than the QL solver's
// (6.4e-14 against 1.6e-14 at n = 50), hence 8n·ε here.
func TestJacobiRivals(t *testing.T) {
	for _, n := range []int{1, 2, 7, 20, 50} {
		a := benchSPD(n)
		for name, solve := range map[string]func(a, w, v []float64, n int) bool{
			"cyclic": jacobiCyclic, "one-sided": jacobiOneSided,
		} {
			work, w, v := append([]float64(nil), a...), make([]float64, n), make([]float64, n*n)
			if !solve(work, w, v, n) {
				t.Fatalf("%s n=%d: no convergence", name, n)
			}
			res, orth := eigErrors(a, w, v, n)
			if tol := 8 * float64(n) * 0x1p-52; res > tol || orth > tol {
				t.Errorf("%s n=%d: residual %.2e, orthogonality %.2e, want ≤ %.2e", name, n, res, orth, tol)
			}
		}
	}
}

// eigErrors returns ‖A Vᵀ − Vᵀ diag(w)‖_F / ‖A‖_F and ‖V Vᵀ − I‖_F for
// the eigenvectors in the rows of v, in plain float64 sums as LAPACK's own
// tests (dsyt21) take them.
func eigErrors(a, w, v []float64, n int) (res, orth float64) {
	var an float64
	for _, x := range a {
		an += x * x
	}
	for k := 0; k < n; k++ {
		vk := v[k*n : (k+1)*n]
		for i := 0; i < n; i++ {
			var s float64
			for j, x := range a[i*n : (i+1)*n] {
				s += x * vk[j]
			}
			s -= w[k] * vk[i]
			res += s * s
		}
		for l := 0; l < n; l++ {
			var s float64
			for j, x := range vk {
				s += x * v[l*n+j]
			}
			if k == l {
				s--
			}
			orth += s * s
		}
	}
	if an == 0 {
		return math.Sqrt(res), math.Sqrt(orth)
	}
	return math.Sqrt(res / an), math.Sqrt(orth)
}
