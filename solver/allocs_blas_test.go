package solver_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// TestEpochAllocsNeedRhgdBLAS: the zero-allocation promise as README and
// the package documentation now state it (issue 29: it held only if the
// oracles computed through blas.Impl() or the program called blas.Init,
// which neither said). An epoch whose lower gradient multiplies 80×80
// matrices allocates nothing through blas.Impl(), and allocates through
// gonum's default BLAS, which blas64 holds unless blas.Init replaced it.
// The statements must name both remedies where the promise is made.
func TestEpochAllocsNeedRhgdBLAS(t *testing.T) {
	for _, c := range []struct {
		file, promise string
	}{
		{"../README.md", "Steady-state epochs allocate nothing in rhgd's own"},
		{"doc.go", "Steady-state epochs allocate nothing in rhgd's own"},
	} {
		b, err := os.ReadFile(c.file)
		require.NoError(t, err)
		_, after, ok := strings.Cut(string(b), c.promise)
		require.True(t, ok, "%s: the promise", c.file)
		para, _, _ := strings.Cut(after, "\n\n")
		for _, want := range []string{"blas.Impl()", "blas.Init", "64×64"} {
			require.Contains(t, para, want, c.file)
		}
	}
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	const n = 80
	epoch := func(impl gblas.Float64) float64 {
		d := newDquad(3, 5, 5)
		p := d.problem(false)
		a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		for i := range a {
			a[i], b[i] = float64(i%7), float64(i%5)
		}
		gy := p.GradGy
		p.GradGy = func(dst []float64, pt *solver.Point) error {
			impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n) // the oracle's own work
			return gy(dst, pt)
		}
		r, err := solver.New(p, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 3})
		require.NoError(t, err)
		return stepAllocs(t, r, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, 10)
	}
	require.Zero(t, epoch(blas.Impl()), "through blas.Impl()")
	require.Positive(t, epoch(gonumblas.Implementation{}), "through gonum's default BLAS")
	if _, isGonum := blas64.Implementation().(gonumblas.Implementation); isGonum {
		require.Positive(t, epoch(blas64.Implementation()), "through blas64 without blas.Init")
	}
}
