package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/spectral"
)

// Batched spectral kernels: many small symmetric matrices at once, the
// workload of SPD networks and covariance descriptors, for which Python
// users call torch.linalg.eigh on a batch (issue 20 §4). Each size is
// (n, b): b matrices of order n. The inputs are SPD, Q_i diag(λ) Q_iᵀ with
// a random orthogonal Q_i per matrix and λ log-spaced in [0.1, 10]
// (distinct eigenvalues, so that the backward maps are well conditioned
// and both sides agree to rounding); the upstream gradients of the
// backward cases are symmetric Gaussian, on which torch's autograd
// through eigh and the Daleckii–Krein formula compute the same thing.
//
// rhgd runs the public API as a user calls it (spectral.Batch.Eig and
// Map: checked inputs, chunks of at most 2²¹ doubles per array as the C
// ABI's rhgd_spectral_*_batch do), torch the expressions users write: eigh
// on the (b, n, n) tensor, V diag(f(λ)) Vᵀ, and autograd's backward
// through them.

// batchEps is ReEig's threshold: inside the spectrum [0.1, 10], never on an
// eigenvalue.
const batchEps = 0.5

// batchChunk is the chunk of cbindings' rhgd_spectral_*_batch: at most
// 2²¹ doubles per array of the Batch.
func batchChunk(n, count int) int { return min(count, max(1, (1<<21)/(n*n))) }

func sizeNB(n, count int) string { return fmt.Sprintf("n=%d,b=%d", n, count) }

// batchRounds caps the rounds of the largest cases, whose one call takes
// seconds: 3 rounds (the minimum) from 10⁹ n³-units per call (10,000
// matrices at n = 64 and 100).
func batchRounds(n, count int) int {
	if float64(count)*float64(n*n*n) >= 1e9 {
		return 3
	}
	return 0
}

// batchInputCache keeps the last inputs made: the seven cases of a size
// share them (making 10,000 100×100 matrices takes seconds).
var batchInputCache struct {
	n, count int
	a, g     []float64
}

// batchInputs returns count SPD n×n matrices and as many symmetric
// upstream gradients.
func batchInputs(n, count int) (a, g []float64) {
	c := &batchInputCache
	if c.n == n && c.count == count && c.a != nil {
		return c.a, c.g
	}
	c.a, c.g = nil, nil // free the previous size first
	rnd := rand.New(rand.NewPCG(uint64(n), uint64(count)))
	lam := logSpaced(n, 0.1, 10)
	nn := n * n
	a, g = make([]float64, count*nn), make([]float64, count*nn)
	for i := 0; i < count; i++ {
		copy(a[i*nn:], withSpectrum(rnd, lam))
		copy(g[i*nn:], symGaussian(rnd, n, 1))
	}
	c.n, c.count, c.a, c.g = n, count, a, g
	return a, g
}

// batchCases are the cases of one size: the eigendecompositions, and
// below b = 10000 exp, log and ReEig forward alone and forward plus
// backward (at 10,000 matrices the maps took most of `make bench`'s time;
// the comparison at both batch sizes is the eigendecomposition).
func batchCases(n, count int) []Case {
	cube := float64(count) * float64(n) * float64(n) * float64(n)
	params := map[string]any{"n": n, "count": count, "eps": batchEps}
	mk := func(op, flops, floor string, peer string, prep func(dir string) (*Prepared, error)) Case {
		return Case{Group: "batch", Op: op, Size: sizeNB(n, count), N: cube, FlopCount: flops, Exponent: 1,
			Floor: floor, Peers: []string{peer}, Params: params, Rounds: batchRounds(n, count), Prepare: prep}
	}
	cs := []Case{mk("eig", "≈9n³ per matrix", "", "torch.eigh_batch", func(dir string) (*Prepared, error) {
		in := newInputs(dir)
		a, _ := batchInputs(n, count)
		in.add("a", a, count*n, n)
		b := spectral.NewBatch(n, batchChunk(n, count))
		w, v := make([]float64, count*n), make([]float64, count*n*n)
		if err := b.Eig(w, v, a, count); err != nil {
			return nil, err
		}
		if err := checkBatchEig(n, count, a, w, v); err != nil {
			return nil, err
		}
		return &Prepared{Files: in.files, Output: func() []float64 { return w }, Run: func() error {
			return b.Eig(w, v, a, count)
		}}, in.err
	})}
	for _, f := range []struct {
		name string
		f    lapackx.Func
	}{{"exp", lapackx.ExpFunc}, {"log", lapackx.LogFunc}, {"reeig", spectral.ReEig(batchEps)}} {
		for _, grad := range []bool{false, true} {
			if count >= 10000 {
				continue // the maps at b = 1000 only: at 10,000 each +grad case took minutes of make bench
			}
			op, flops, peer := f.name, "≈10n³ per matrix", "torch."+f.name+"_batch"
			if grad {
				op, flops, peer = f.name+"+grad", "≈16n³ per matrix", peer+"_grad"
			}
			cs = append(cs, mk(op, flops, "eig", peer, func(dir string) (*Prepared, error) {
				in := newInputs(dir)
				a, g := batchInputs(n, count)
				in.add("a", a, count*n, n)
				b := spectral.NewBatch(n, batchChunk(n, count))
				out := make([]float64, count*n*n)
				if !grad {
					return &Prepared{Files: in.files, Output: func() []float64 { return out }, Run: func() error {
						return b.Map(out, nil, a, nil, count, f.f)
					}}, in.err
				}
				in.add("g", g, count*n, n)
				dx := make([]float64, count*n*n)
				return &Prepared{Files: in.files, Output: func() []float64 { return dx }, Run: func() error {
					return b.Map(out, dx, a, g, count, f.f)
				}}, in.err
			}))
		}
	}
	return cs
}

// checkBatchEig checks the eigendecompositions on up to 200 matrices
// spread over the batch: ascending eigenvalues, ‖Vᵀ diag(λ) V − A‖_F ≤
// 64 n ε ‖A‖_F and ‖V Vᵀ − I‖_max ≤ 64 n ε, as torch's side checks its own.
func checkBatchEig(n, count int, a, w, v []float64) error {
	nn, tol := n*n, 64*float64(n)*0x1p-52
	step := max(1, count/200)
	for i := 0; i < count; i += step {
		ai, wi, vi := a[i*nn:(i+1)*nn], w[i*n:(i+1)*n], v[i*nn:(i+1)*nn]
		var res, an float64
		for p := 0; p < n; p++ {
			if p > 0 && wi[p] < wi[p-1] {
				return fmt.Errorf("bench: batched eig: matrix %d: eigenvalues not ascending", i)
			}
			for q := 0; q < n; q++ {
				var s, o float64
				for k := 0; k < n; k++ {
					s += vi[k*n+p] * wi[k] * vi[k*n+q]
					o += vi[p*n+k] * vi[q*n+k]
				}
				if p == q {
					o--
				}
				if math.Abs(o) > tol {
					return fmt.Errorf("bench: batched eig: matrix %d: |(V Vᵀ − I)[%d,%d]| = %.2g", i, p, q, o)
				}
				d := s - ai[p*n+q]
				res, an = res+d*d, an+ai[p*n+q]*ai[p*n+q]
			}
		}
		if math.Sqrt(res) > tol*math.Sqrt(an) {
			return fmt.Errorf("bench: batched eig: matrix %d: residual %.2g relative", i, math.Sqrt(res/an))
		}
	}
	return nil
}
