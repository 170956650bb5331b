package grassmann_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// TestCheckPoint: any orthonormal basis is a point, XO as well as X;
// a wrong length, a NaN or an infinity, and columns that are not
// orthonormal (by the defect ‖XᵀX − I‖_F the message gives) are errors
// that errors.Is matches to the numerr sentinels.
func TestCheckPoint(t *testing.T) {
	const n, p = 7, 3
	rnd := rand.New(rand.NewPCG(10, 1))
	g := grassmann.New(n, p)
	x := make([]float64, n*p)
	g.RandPoint(x, rnd)
	require.NoError(t, g.CheckPoint(x))
	require.NoError(t, g.CheckPoint(mul(x, orthogonal(p, rnd), n, p, p)))

	assert.Error(t, g.CheckPoint(x[1:]), "short")
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		b := slices.Clone(x)
		b[4] = v
		err := g.CheckPoint(b)
		assert.True(t, errors.Is(err, numerr.ErrNotFinite), "%v: %v", v, err)
		assert.Contains(t, err.Error(), "point[1,1]")
	}
	b := slices.Clone(x)
	for i := range b {
		b[i] *= 1 + 1e-6
	}
	err := g.CheckPoint(b)
	assert.True(t, errors.Is(err, grassmann.ErrNotOrthonormal), "%v", err)
	assert.True(t, errors.Is(err, numerr.ErrInvalid), "%v", err)
	// ‖(1+δ)²I − I‖_F = √p·(2δ + δ²).
	assert.Contains(t, err.Error(), "‖XᵀX − I‖_F = 3.46e-06")
}

// TestCheckTangent: a horizontal vector is tangent; a vertical one, XΩ
// with Ω skew, is tangent to Stiefel but not to Gr (it moves the basis
// within its subspace) and is refused, as are NaN and infinities.
func TestCheckTangent(t *testing.T) {
	const n, p = 7, 3
	rnd := rand.New(rand.NewPCG(11, 1))
	g, st := grassmann.New(n, p), stiefel.New(n, p)
	x, u := make([]float64, n*p), make([]float64, n*p)
	g.RandPoint(x, rnd)
	g.RandTangent(u, x, rnd)
	require.NoError(t, g.CheckTangent(x, u))
	vert := vertical(x, p)
	require.NoError(t, st.CheckTangent(x, vert), "XΩ is a Stiefel tangent")
	err := g.CheckTangent(x, vert)
	assert.True(t, errors.Is(err, manifold.ErrNotTangent), "%v", err)
	assert.True(t, errors.Is(err, numerr.ErrInvalid), "%v", err)
	assert.True(t, strings.HasPrefix(err.Error(), "grassmann: "), "%v", err)
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		b := slices.Clone(u)
		b[2] = v
		assert.True(t, errors.Is(g.CheckTangent(x, b), numerr.ErrNotFinite), "%v", v)
	}
}

// TestBadInput: Exp, Log, Dist and Retract return errors, not NaN
// points, for non-finite input.
func TestBadInput(t *testing.T) {
	const n, p = 6, 2
	rnd := rand.New(rand.NewPCG(12, 1))
	g := grassmann.New(n, p)
	x, y, u := draw(g, rnd)
	dst := make([]float64, n*p)
	nanU, nanY := slices.Clone(u), slices.Clone(y)
	nanU[3], nanY[5] = math.NaN(), math.NaN()
	assert.True(t, errors.Is(g.Exp(dst, x, u, math.NaN()), numerr.ErrNotFinite), "Exp with t = NaN")
	assert.True(t, errors.Is(g.Exp(dst, x, nanU, 1), numerr.ErrNotFinite), "Exp of NaN")
	assert.True(t, errors.Is(g.Log(dst, x, nanY), numerr.ErrNotFinite), "Log of NaN")
	_, err := g.Dist(x, nanY)
	assert.True(t, errors.Is(err, numerr.ErrNotFinite), "Dist of NaN: %v", err)
	for _, name := range g.Retractions() {
		require.NoError(t, g.SetRetraction(name))
		assert.True(t, errors.Is(g.Retract(dst, x, nanU, 0.5), numerr.ErrNotFinite), "%s retraction of NaN", name)
	}
}

// TestSnapPoint: an orthonormal basis rounded to float32 fails
// CheckPoint, and SnapPoint replaces it by its polar factor, which spans
// the same subspace (to rounding) and is near the float64 basis, with a
// note giving the defect; a point is kept as it is; a basis off by more
// than float32 rounding, or with a NaN, is refused.
func TestSnapPoint(t *testing.T) {
	const n, p = 50, 20
	g := grassmann.New(n, p)
	x := make([]float64, n*p)
	g.RandPoint(x, rand.New(rand.NewPCG(13, 1)))
	x32 := f32test.Round(x)
	got, note := manifoldtest.Snap(t, g, x, x32)
	assert.Contains(t, note, "‖XᵀX − I‖_F")
	assert.Contains(t, note, "polar")
	// The polar factor of A is A·(AᵀA)^{−½}: the column space of A.
	assert.LessOrEqual(t, dist2(projector(got, n, p), projector(x32, n, p)), 2*dist2(x32, x),
		"snapped subspace moved by more than the rounding")
	// To first order the polar factor of X + E is X + E − X sym(XᵀE): within ‖E‖ of X.
	assert.LessOrEqual(t, dist2(got, x), 2*dist2(x32, x))

	off := slices.Clone(x)
	for i := range off {
		off[i] *= 1.01
	}
	_, err := g.SnapPoint(got, off)
	assert.True(t, errors.Is(err, grassmann.ErrNotOrthonormal), "%v", err)
	assert.Contains(t, err.Error(), "beyond float32 rounding")
	bad := slices.Clone(x32)
	bad[3] = math.NaN()
	_, err = g.SnapPoint(got, bad)
	assert.True(t, errors.Is(err, numerr.ErrNotFinite), "%v", err)
}

// TestRetractionNames: the names are stiefel's for the same maps (qr,
// polar, exp), the default is stiefel's (qr), exponential is read as
// exp, and an unknown name (stiefel's cayley, which is not offered here)
// is an error listing the names.
func TestRetractionNames(t *testing.T) {
	g, st := grassmann.New(5, 2), stiefel.New(5, 2)
	assert.Equal(t, st.RetractionName(), g.RetractionName())
	assert.Equal(t, []string{"qr", "polar", "exp"}, g.Retractions())
	for _, name := range g.Retractions() {
		assert.Contains(t, st.Retractions(), name)
	}
	r, err := grassmann.ParseRetraction(" Exponential")
	require.NoError(t, err)
	assert.Equal(t, grassmann.Exponential, r)
	_, err = grassmann.ParseRetraction("cayley")
	assert.ErrorContains(t, err, "want qr, polar or exp")
	assert.Equal(t, "Retraction(7)", grassmann.Retraction(7).String())
	require.Error(t, g.SetRetraction("cayley"))
	assert.Equal(t, "qr", g.RetractionName())
	require.NoError(t, g.SetRetraction("POLAR"))
	assert.Equal(t, grassmann.Polar, solver.Clone(g).(*grassmann.Grassmann).Retraction, "Clone keeps the retraction")
}

// TestAllocs: the methods the suite does not time allocate nothing
// either: every retraction, the checks, the random point and tangent.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	const n, p = 12, 4
	rnd := rand.New(rand.NewPCG(14, 1))
	g := grassmann.New(n, p)
	x, y, u := draw(g, rnd)
	dst := make([]float64, n*p)
	ops := map[string]func(){
		"CheckPoint":   func() { _ = g.CheckPoint(x) },
		"CheckTangent": func() { _ = g.CheckTangent(x, u) },
		"RandPoint":    func() { g.RandPoint(dst, rnd) },
		"RandTangent":  func() { g.RandTangent(dst, x, rnd) },
		"Exp":          func() { _ = g.Exp(dst, x, u, 0.7) },
		"Log":          func() { _ = g.Log(dst, x, y) },
		"Dist":         func() { _, _ = g.Dist(x, y) },
	}
	for _, name := range g.Retractions() {
		ops["Retract/"+name] = func() {
			g.Retraction, _ = grassmann.ParseRetraction(name)
			_ = g.Retract(dst, x, u, 0.7)
		}
	}
	for name, op := range ops {
		op()
		assert.Zero(t, testing.AllocsPerRun(5, op), name)
	}
}
