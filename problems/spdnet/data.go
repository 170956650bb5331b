package spdnet

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/data/eth80"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/problems"
)

// Data are labelled SPD matrices: N matrices of order D, one after the
// other in A (N·D·D entries, row-major), with labels 1..Classes. The tags
// name them in the problem's .npz file (problems.ReadTagged).
type Data struct {
	N       int       `dim:"N"` // matrices
	D       int       `dim:"D"` // their order
	Classes int       // classes
	A       []float64 `npz:"A" shape:"N×D×D"` // N·D·D entries
	Labels  []int     // N labels, 1..Classes
	// Name says where the data came from.
	Name string
}

// Validate checks the sizes, the labels (each class present at least
// twice, so that a split can put one on each side), and that every matrix
// is finite, symmetric to float32 rounding (problems.CheckSymmetric; New
// symmetrizes them) and positive definite (by a Cholesky factor). Errors
// wrap problems.ErrBadData.
func (d *Data) Validate() error {
	if d == nil {
		return fmt.Errorf("spdnet: %w: no data", problems.ErrBadData)
	}
	if d.N < 2 || d.D < 1 || d.Classes < 2 {
		return fmt.Errorf("spdnet: %w: N = %d matrices of order D = %d in %d classes (want N ≥ 2, D ≥ 1, at least 2 classes)", problems.ErrBadData, d.N, d.D, d.Classes)
	}
	if len(d.A) != d.N*d.D*d.D || len(d.Labels) != d.N {
		return fmt.Errorf("spdnet: %w: %d entries of A and %d labels for N = %d, D = %d", problems.ErrBadData, len(d.A), len(d.Labels), d.N, d.D)
	}
	counts := make([]int, d.Classes)
	for i, l := range d.Labels {
		if l < 1 || l > d.Classes {
			return fmt.Errorf("spdnet: %w: label %d of matrix %d is not in 1..%d", problems.ErrBadData, l, i, d.Classes)
		}
		counts[l-1]++
	}
	for c, k := range counts {
		if k < 2 {
			return fmt.Errorf("spdnet: %w: class %d has %d matrices, need 2 or more", problems.ErrBadData, c+1, k)
		}
	}
	n := d.D
	if err := problems.CheckSymmetric(nil, "A", d.A, n); err != nil {
		return fmt.Errorf("spdnet: %w", err)
	}
	l := make([]float64, n*n)
	for i := 0; i < d.N; i++ {
		if err := lapackx.Cholesky(l, d.A[i*n*n:(i+1)*n*n], n); err != nil {
			return fmt.Errorf("spdnet: %w: matrix %d: %w", problems.ErrBadData, i, err)
		}
	}
	return nil
}

// PaperScale and PaperEps define the ETH-80 covariances: the pixels
// (0..255) are divided by PaperScale before the sample covariance, and
// PaperEps·I is added. The authors' code adds 1e−3·I to np.cov of the
// pixels (scale not stated); with raw pixels 1e−3 is negligible against
// entries of about 1e3, so the scale of the data README's 1-NN check is
// used: pixels/255, where ε = 1e−3 matters (the covariances have rank 40 and
// are positive definite only through εI).
const (
	PaperScale = 255
	PaperEps   = 1e-3
)

// ETH80 returns the covariance matrices of the 80 embedded ETH-80 image
// sets: for each set, the 100×100 sample covariance (normalized by
// 41 − 1, as numpy's cov) of its 41 vectorized images, pixels divided by
// scale, plus eps·I; labels are the 8 classes.
func ETH80(scale, eps float64) (*Data, error) {
	if !(scale > 0) || math.IsInf(scale, 0) || !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("spdnet: %w: pixel scale %v and ε %v must be positive and finite", problems.ErrBadData, scale, eps)
	}
	raw, err := eth80.Load()
	if err != nil {
		return nil, fmt.Errorf("spdnet: %w: %w", problems.ErrBadData, err)
	}
	const n, p, v = eth80.Sets, eth80.Pixels, eth80.Views
	d := &Data{N: n, D: p, Classes: eth80.Classes, A: make([]float64, n*p*p), Labels: append([]int(nil), raw.Labels...),
		Name: fmt.Sprintf("ETH-80 covariances of pixels/%g + %g·I", scale, eps)}
	x := make([]float64, v*p)
	impl := blas.Impl()
	for s := 0; s < n; s++ {
		img := raw.Set(s)
		for j := 0; j < p; j++ { // center each pixel over the set's views
			var mean float64
			for i := 0; i < v; i++ {
				mean += img[i*p+j]
			}
			mean /= v
			for i := 0; i < v; i++ {
				x[i*p+j] = (img[i*p+j] - mean) / scale
			}
		}
		a := d.A[s*p*p : (s+1)*p*p]
		impl.Dsyrk(gblas.Upper, gblas.Trans, p, v, 1/float64(v-1), x, p, 0, a, p)
		lapackx.MirrorUpper(a, p)
		for j := 0; j < p; j++ {
			a[j*p+j] += eps
		}
	}
	return d, nil
}

// Split names the training and validation matrices by index into Data.
type Split struct {
	Train, Val []int // the lower level's matrices, the upper level's
}

// RandomSplit draws perClass matrices of each class for training and
// leaves the rest for validation (the paper's 5 of 10 per class), from
// seed; within each set the indices are shuffled. It returns an error
// wrapping problems.ErrBadData when a class has perClass or fewer matrices.
func RandomSplit(labels []int, classes, perClass int, seed uint64) (Split, error) {
	if perClass < 1 {
		return Split{}, fmt.Errorf("spdnet: %w: %d training matrices per class", problems.ErrBadData, perClass)
	}
	rnd := rand.New(rand.NewPCG(seed, 0x5fd))
	byClass := make([][]int, classes)
	for i, l := range labels {
		if l < 1 || l > classes {
			return Split{}, fmt.Errorf("spdnet: %w: label %d not in 1..%d", problems.ErrBadData, l, classes)
		}
		byClass[l-1] = append(byClass[l-1], i)
	}
	var s Split
	for c, idx := range byClass {
		if len(idx) <= perClass {
			return Split{}, fmt.Errorf("spdnet: %w: class %d has %d matrices, need more than the %d for training", problems.ErrBadData, c+1, len(idx), perClass)
		}
		rnd.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		s.Train = append(s.Train, idx[:perClass]...)
		s.Val = append(s.Val, idx[perClass:]...)
	}
	rnd.Shuffle(len(s.Train), func(i, j int) { s.Train[i], s.Train[j] = s.Train[j], s.Train[i] })
	rnd.Shuffle(len(s.Val), func(i, j int) { s.Val[i], s.Val[j] = s.Val[j], s.Val[i] })
	return s, nil
}

// check validates the split against n matrices: indices in range, each at
// most once, both sides non-empty.
func (s Split) check(n int) error {
	if len(s.Train) == 0 || len(s.Val) == 0 {
		return fmt.Errorf("spdnet: %w: %d training and %d validation matrices", problems.ErrBadData, len(s.Train), len(s.Val))
	}
	seen := make([]bool, n)
	for _, idx := range [][]int{s.Train, s.Val} {
		for _, i := range idx {
			if i < 0 || i >= n || seen[i] {
				return fmt.Errorf("spdnet: %w: split index %d out of range or repeated", problems.ErrBadData, i)
			}
			seen[i] = true
		}
	}
	return nil
}
