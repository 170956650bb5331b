package meta_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/problems/meta"
)

// refAccuracy is the test accuracy computed independently: features with
// gonum, each head by Newton's method with the dense Hessian (Kronecker
// products formed here) and gonum's Cholesky solve, from zero.
func refAccuracy(t *testing.T, d *meta.Data, ts *meta.Tasks, theta []float64, p int, lambda float64) float64 {
	q, c := p+1, ts.Spec.Ways
	feat := refFeature(d, ts, theta, p)
	softmax := func(phi, w []float64) []float64 {
		z := make([]float64, c)
		mx := math.Inf(-1)
		for k := range z {
			for a := range phi {
				z[k] += phi[a] * w[a*c+k]
			}
			mx = math.Max(mx, z[k])
		}
		var s float64
		for k := range z {
			z[k] = math.Exp(z[k] - mx)
			s += z[k]
		}
		for k := range z {
			z[k] /= s
		}
		return z
	}
	var sum float64
	for _, task := range ts.Test {
		n := float64(len(task.Support))
		w := make([]float64, q*c)
		for it := 0; it < 30; it++ {
			g := mat.NewVecDense(q*c, nil)
			h := mat.NewSymDense(q*c, nil)
			for j := 0; j < q*c; j++ {
				g.SetVec(j, lambda*w[j])
				h.SetSym(j, j, lambda)
			}
			for j, i := range task.Support {
				f := feat(i)
				pr := softmax(f, w)
				for a := 0; a < q; a++ {
					for k := 0; k < c; k++ {
						e := 0.0
						if k == task.SupLabels[j] {
							e = 1
						}
						g.SetVec(a*c+k, g.AtVec(a*c+k)+f[a]*(pr[k]-e)/n)
						for b := 0; b < q; b++ {
							for l := 0; l < c; l++ {
								if b*c+l < a*c+k {
									continue
								}
								kl := -pr[k] * pr[l]
								if k == l {
									kl += pr[k]
								}
								h.SetSym(a*c+k, b*c+l, h.At(a*c+k, b*c+l)+f[a]*f[b]*kl/n)
							}
						}
					}
				}
			}
			var ch mat.Cholesky
			require.True(t, ch.Factorize(h))
			var step mat.VecDense
			require.NoError(t, ch.SolveVecTo(&step, g))
			for j := range w {
				w[j] -= step.AtVec(j)
			}
			if mat.Norm(g, 2) < 1e-11 {
				break
			}
		}
		ok := 0
		for j, i := range task.Query {
			pr := softmax(feat(i), w)
			best := 0
			for k := range pr {
				if pr[k] > pr[best] {
					best = k
				}
			}
			if best == task.QryLabels[j] {
				ok++
			}
		}
		sum += float64(ok) / float64(len(task.Query))
	}
	return 100 * sum / float64(len(ts.Test))
}

// TestAccuracy: the test accuracy against the independent computation, at
// the start and at PCA features; the PCA baseline is the accuracy at the
// top principal directions of the meta-training images (compared through
// the subspace they span, which fixes the features up to signs: tanh is
// odd and the heads absorb the signs).
func TestAccuracy(t *testing.T) {
	d, ts, p, _ := setup(t, meta.TaskSpec{Ways: 5, Shots: 3, Queries: 6}, 6, 12, 8, 0.1, false, 2)
	theta, heads := p.Start(0)
	got, err := p.Accuracy(theta, heads)
	require.NoError(t, err)
	require.InDelta(t, refAccuracy(t, d, ts, theta, 8, 0.1), got, 1e-9)
	// PCA features: the top eigenvectors of the covariance of the
	// meta-training images that the tasks use.
	seen := map[int]bool{}
	var rows []float64
	for _, task := range ts.Train {
		for _, i := range append(append([]int(nil), task.Support...), task.Query...) {
			if !seen[i] {
				seen[i] = true
				for j := 0; j < d.Dim; j++ {
					rows = append(rows, d.X[i*d.Dim+j]-ts.Mean[j])
				}
			}
		}
	}
	x := mat.NewDense(len(seen), d.Dim, rows)
	var cov mat.SymDense
	cov.SymOuterK(1/float64(len(seen)), x.T())
	var es mat.EigenSym
	require.True(t, es.Factorize(&cov, true))
	var v mat.Dense
	es.VectorsTo(&v)
	pca := make([]float64, d.Dim*8)
	for j := 0; j < d.Dim; j++ {
		for a := 0; a < 8; a++ {
			pca[j*8+a] = v.At(j, d.Dim-1-a)
		}
	}
	want := refAccuracy(t, d, ts, pca, 8, 0.1)
	base, err := p.BaselineAccuracy()
	require.NoError(t, err)
	require.InDelta(t, want, base, 1e-9)
	t.Logf("test accuracy at the start %.2f%%, with PCA features %.2f%%", got, base)
}
