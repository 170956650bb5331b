package solver_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

func randVec(rnd *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rnd.NormFloat64()
	}
	return v
}

// f(x) = Σ sin(x_i) + ⅓ Σ x_i³ on R^{2×3}.
func TestCheckGradientDetectsErrors(t *testing.T) {
	m := euclid.New(2, 3)
	rnd := rand.New(rand.NewPCG(1, 1))
	x, u := randVec(rnd, 6), make([]float64, 6)
	m.RandTangent(u, x, rnd)
	f := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += sinApprox(v) + v*v*v/3
		}
		return s
	}
	good := func(dst, x []float64) {
		for i, v := range x {
			dst[i] = cosApprox(v) + v*v
		}
	}
	bad := func(dst, x []float64) {
		good(dst, x)
		dst[2] *= 1.01
	}
	if r := solver.CheckGradient(m, f, good, x, u); !r.OK {
		t.Errorf("correct gradient rejected: %v", r)
	}
	if r := solver.CheckGradient(m, f, bad, x, u); r.OK {
		t.Errorf("wrong gradient accepted: %v", r)
	} else if !strings.Contains(r.String(), "FAILED") {
		t.Errorf("report %q", r)
	}
}

// Polynomial stand-ins for sin and cos keep f a plain test function.
func sinApprox(v float64) float64 { return v - v*v*v/6 + v*v*v*v*v/120 }
func cosApprox(v float64) float64 { return 1 - v*v/2 + v*v*v*v/24 }

// g(x, Y) = tr(xᵀ Y x) for x ∈ R^{3×2} and Y ∈ SPD(3): grad_x g = 2Yx,
// G_xy g[V] = 2Vx, and G_yx g[U] = Y (U xᵀ + x Uᵀ) Y in the affine-invariant
// metric.
func TestCheckCrossDerivative(t *testing.T) {
	mx, my := euclid.New(3, 2), spd.New(3)
	rnd := rand.New(rand.NewPCG(2, 2))
	x, u := randVec(rnd, 6), make([]float64, 6)
	mx.RandTangent(u, x, rnd)
	y, v := make([]float64, 9), make([]float64, 9)
	my.RandPoint(y, rnd)
	my.RandTangent(v, y, rnd)
	mul := func(dst, a []float64, ar, ac int, b []float64, bc int) { copy(dst, fuzzing.MulPlain(a, b, ar, ac, bc)) }
	gradX := func(dst, x, y []float64) {
		mul(dst, y, 3, 3, x, 2)
		for i := range dst {
			dst[i] *= 2
		}
	}
	crossXY := func(dst, x, y, v []float64) {
		mul(dst, v, 3, 3, x, 2)
		for i := range dst {
			dst[i] *= 2
		}
	}
	crossYX := func(dst, x, y, u []float64) {
		w := make([]float64, 9)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				var s float64
				for k := 0; k < 2; k++ {
					s += u[i*2+k]*x[j*2+k] + x[i*2+k]*u[j*2+k]
				}
				w[i*3+j] = s
			}
		}
		t1 := make([]float64, 9)
		mul(t1, y, 3, 3, w, 3)
		mul(dst, t1, 3, 3, y, 3)
	}
	if r := solver.CheckCrossDerivative(mx, my, gradX, crossXY, crossYX, x, y, u, v); !r.OK {
		t.Errorf("correct cross derivative rejected: %v", r)
	}
	wrong := func(dst, x, y, v []float64) {
		crossXY(dst, x, y, v)
		dst[0] += 0.01
	}
	if r := solver.CheckCrossDerivative(mx, my, gradX, wrong, crossYX, x, y, u, v); r.OK {
		t.Errorf("wrong cross derivative accepted: %v", r)
	}
	wrongAdj := func(dst, x, y, u []float64) {
		crossYX(dst, x, y, u)
		for i := range dst {
			dst[i] *= 1.001
		}
	}
	if r := solver.CheckCrossDerivative(mx, my, gradX, crossXY, wrongAdj, x, y, u, v); r.OK {
		t.Errorf("wrong adjoint accepted: %v", r)
	}
}

func TestCheckRetractionDetectsFirstOrder(t *testing.T) {
	// The second-order SPD retraction passes as order 2; a perturbed
	// second-order term does not.
	m := spd.New(4)
	rnd := rand.New(rand.NewPCG(3, 3))
	x, u := make([]float64, 16), make([]float64, 16)
	m.RandPoint(x, rnd)
	m.RandTangent(u, x, rnd)
	if r := solver.CheckRetraction(m, x, u, 2); !r.OK {
		t.Errorf("second-order retraction rejected: %v", r)
	}
	if r := solver.CheckExpLog(m, x, u); !r.OK {
		t.Errorf("exp/log: %v", r)
	}
}
