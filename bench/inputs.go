package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"codeberg.org/sbinet/npyio"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
)

// inputs writes a case's arrays as .npy files into dir and remembers their
// paths; with dir "" it writes nothing (the Go benchmarks).
type inputs struct {
	dir   string
	files map[string]string
	err   error
}

func newInputs(dir string) *inputs { return &inputs{dir: dir, files: map[string]string{}} }

// add writes v, of rows×cols (cols 0: a vector), as name.npy.
func (in *inputs) add(name string, v []float64, rows, cols int) {
	if in.dir == "" || in.err != nil {
		return
	}
	path := filepath.Join(in.dir, name+".npy")
	f, err := os.Create(path)
	if err != nil {
		in.err = err
		return
	}
	var val any = v
	if cols > 0 {
		val = mat.NewDense(rows, cols, v)
	}
	if err := npyio.Write(f, val); err != nil {
		f.Close()
		in.err = fmt.Errorf("bench: writing %s: %w", path, err)
		return
	}
	if err := f.Close(); err != nil {
		in.err = err
		return
	}
	in.files[name] = path
}

// orthonormal returns the Q factor of an n×p Gaussian matrix.
func orthonormal(rnd *rand.Rand, n, p int) []float64 {
	g := gaussian(rnd, n*p, 1)
	qr := lapackx.NewQR(n, p)
	if err := qr.Factorize(g); err != nil {
		panic(err) // a Gaussian matrix has full rank
	}
	q := make([]float64, n*p)
	qr.QTo(q)
	return q
}

func gaussian(rnd *rand.Rand, k int, s float64) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = s * rnd.NormFloat64()
	}
	return v
}

// withSpectrum returns Q diag(lam) Qᵀ for a random orthogonal Q.
func withSpectrum(rnd *rand.Rand, lam []float64) []float64 {
	n := len(lam)
	q := orthonormal(rnd, n, n)
	qd := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			qd[i*n+j] = q[i*n+j] * lam[j]
		}
	}
	a := make([]float64, n*n)
	blas.Impl().Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, qd, n, q, n, 0, a, n)
	lapackx.Symmetrize(a, n)
	return a
}

// logSpaced returns n values from lo to hi, evenly spaced in log.
func logSpaced(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo * math.Pow(hi/lo, float64(i)/float64(max(n-1, 1)))
	}
	return v
}

// symGaussian returns (G + Gᵀ)/2 · s for a Gaussian G: its spectrum fills
// about [−s√(2n), s√(2n)].
func symGaussian(rnd *rand.Rand, n int, s float64) []float64 {
	a := gaussian(rnd, n*n, s)
	lapackx.Symmetrize(a, n)
	return a
}
