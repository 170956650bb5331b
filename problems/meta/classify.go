package meta

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// headTol is the gradient tolerance of the test tasks' head solves: far
// below what could change a prediction.
const headTol = 1e-9

// Accuracy returns the meta-test accuracy at Θ in percent: for each
// held-out task, the head fitted on its support set (the lower problem
// solved exactly, from zero, by headSolver) classifies its query set; the
// accuracy is averaged over the tasks. The heads y of the meta-training
// tasks play no part.
func (p *Problem) Accuracy(theta, _ []float64) (float64, error) {
	if len(theta) != p.Mx.Len() {
		panic("meta: Accuracy: dimension mismatch")
	}
	return p.testAccuracy(theta)
}

func (p *Problem) testAccuracy(theta []float64) (float64, error) {
	s := p.te
	if err := p.features(s, theta, nil); err != nil {
		return 0, err
	}
	var sum float64
	for t := range s.tasks {
		lt := &s.tasks[t]
		w := p.accW
		clear(w)
		if err := p.head.solve(w, s.phi, lt.sup, lt.ysup, headTol); err != nil {
			return 0, fmt.Errorf("meta: test task %d: %w", t, err)
		}
		ok := 0
		for r, i := range lt.qry {
			f := s.phi[i*p.q : (i+1)*p.q]
			best, bz := 0, math.Inf(-1)
			for k := 0; k < p.c; k++ {
				var z float64
				for a, x := range f {
					z += x * w[a*p.c+k]
				}
				if z > bz {
					best, bz = k, z
				}
			}
			if best == lt.yqry[r] {
				ok++
			}
		}
		sum += float64(ok) / float64(len(lt.qry))
	}
	return 100 * sum / float64(len(s.tasks)), nil
}

// BaselineAccuracy returns the meta-test accuracy of the same heads on
// features without meta-learning: Θ the top P principal directions of
// the meta-training images (the eigenvectors of their covariance).
func (p *Problem) BaselineAccuracy() (float64, error) {
	s := p.tr
	d := p.dim
	cov := make([]float64, d*d)
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, d, s.n, 1/float64(s.n), s.x, d, 0, cov, d)
	lapackx.MirrorUpper(cov, d)
	e := lapackx.NewEigSym(d)
	if err := e.Factorize(cov); err != nil {
		return 0, fmt.Errorf("meta: PCA: %w", err)
	}
	theta := make([]float64, d*p.p)
	v := e.Vectors() // rows, ascending eigenvalues
	for a := 0; a < p.p; a++ {
		row := v[(d-1-a)*d : (d-a)*d]
		for j := 0; j < d; j++ {
			theta[j*p.p+a] = row[j]
		}
	}
	return p.testAccuracy(theta)
}
