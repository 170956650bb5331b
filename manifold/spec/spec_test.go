package spec_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/grassmann"
	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// TestNew: a spec builds its manifold, with every name of the table's
// name keys, and String writes it back as a spec that builds the same
// manifold; the defaults are the manifolds' zero values.
func TestNew(t *testing.T) {
	for _, info := range mspec.Table() {
		if info.Name == "coupling" {
			continue
		}
		base := map[string]string{"spd": "spd:n=3", "stiefel": "stiefel:n=4,p=2", "euclid": "euclid:r=3",
			"grassmann": "grassmann:n=4,p=2", "simplex": "simplex:n=3"}[info.Name]
		m, err := mspec.New(base)
		require.NoError(t, err, base)
		again, err := mspec.New(mspec.String(m))
		require.NoError(t, err)
		require.Equal(t, mspec.String(m), mspec.String(again))
		for _, o := range info.Options {
			if o.Default != "" {
				require.Contains(t, mspec.String(m), o.Key+"="+o.Default, base) // what leaving it out gives
			}
			for _, name := range o.Names {
				m, err := mspec.New(base + "," + o.Key + "=" + name)
				require.NoError(t, err, name)
				require.Contains(t, mspec.String(m), o.Key+"="+name)
			}
		}
	}
	require.Equal(t, spd.Retraction(0).String(), "second-order")
	require.Equal(t, stiefel.Retraction(0).String(), "qr")
	require.Equal(t, grassmann.Retraction(0).String(), "qr")
	m, err := mspec.New(" Euclidean: r=2, c=3")
	require.NoError(t, err)
	require.Equal(t, "euclid:r=2,c=3", mspec.String(m))

	for spec, want := range map[string]string{
		"torus:n=3": "unknown manifold \"torus\" (want spd, stiefel, euclid, grassmann or simplex)", "spd": "n is required",
		"spd:n=0": "not an integer in", "spd:n=3,retr=polar": "retr: spd: unknown retraction \"polar\" (want second-order or exp)",
		"stiefel:n=3,p=4": "p=\"4\" is not an integer in [1, 3]", "spd:n=3,foo=1": "unknown setting \"foo\"",
		"spd:n=3,n=4": "n given twice", "stiefel:n=3,p=1,retr=x": "(want qr, polar, cayley or exp)",
	} {
		_, err := mspec.New(spec)
		require.ErrorIs(t, err, mspec.ErrBadSpec, spec)
		require.ErrorIs(t, err, numerr.ErrInvalid, spec)
		require.ErrorContains(t, err, want, spec)
	}
	_, err = mspec.New("coupling:m=2,n=2")
	require.ErrorIs(t, err, mspec.ErrMarginals)
}

// TestCoupling: the coupling's options set its Sinkhorn balancing; a 0
// would be the default and is an error naming the default.
func TestCoupling(t *testing.T) {
	a := []float64{0.5, 0.5}
	c, desc, err := mspec.Coupling(a, a, "")
	require.NoError(t, err)
	require.Equal(t, coupling.SinkhornSettings{}, c.Sinkhorn)
	require.Equal(t, "coupling:m=2,n=2", desc)
	c, desc, err = mspec.Coupling(a, a, "maxiter=7,tol=1e-9")
	require.NoError(t, err)
	require.Equal(t, coupling.SinkhornSettings{MaxIter: 7, Tol: 1e-9}, c.Sinkhorn)
	require.Equal(t, "coupling:m=2,n=2,maxiter=7,tol=1e-9", desc)
	require.Equal(t, "coupling:m=2,n=2,maxiter=7,tol=1e-09", mspec.String(c))
	for opts, want := range map[string]string{
		"maxiter=0": "leave maxiter out for the default (10000)", "tol=0": "leave tol out for the default (1e-13)",
		"maxiter=0.5": "maxiter", "tol=-1": "tol", "eps=1": "unknown setting",
	} {
		_, _, err := mspec.Coupling(a, a, opts)
		require.ErrorIs(t, err, mspec.ErrBadSpec, opts)
		require.ErrorContains(t, err, want, opts)
	}
}

// TestHelp: the help's synopses name every key and name of the table,
// and RetractionUsage every retraction.
func TestHelp(t *testing.T) {
	help := mspec.Help()
	require.Contains(t, help, "spd:n=N[,retr=second-order|exp][,transport=identity|parallel][,metric=affine-invariant|log-euclidean|bures-wasserstein]\n")
	require.Contains(t, help, "stiefel:n=N,p=P[,retr=qr|polar|cayley|exp]\n")
	for _, info := range mspec.Table() {
		require.Contains(t, help, info.Synopsis())
		for _, o := range info.Options {
			if o.Default != "" {
				require.Contains(t, strings.Join(strings.Fields(help), " "), o.Key+"="+o.Default)
			}
		}
	}
	require.Equal(t, "second-order|exp (SPD), qr|polar|cayley|exp (Stiefel), qr|polar|exp (Grassmann)", mspec.RetractionUsage())
}

// TestGrassmannSimplex: the specs of Gr(n, p) and the simplex build the
// manifolds of those sizes with the retraction named, and refuse the sizes
// the packages would panic on (p = n, p > n, n = 1), naming the key.
func TestGrassmannSimplex(t *testing.T) {
	m, err := mspec.New("grassmann:n=5,p=2,retr=exp")
	require.NoError(t, err)
	g, ok := m.(*grassmann.Grassmann)
	require.True(t, ok, "%T", m)
	n, p := g.Dims()
	require.Equal(t, [3]int{5, 2, 6}, [3]int{n, p, g.Dim()})
	require.Equal(t, grassmann.Exponential, g.Retraction)
	require.Equal(t, "grassmann:n=5,p=2,retr=exp", mspec.String(m))

	m, err = mspec.New("simplex:n=4")
	require.NoError(t, err)
	s, ok := m.(*simplex.Simplex)
	require.True(t, ok, "%T", m)
	require.Equal(t, [2]int{4, 3}, [2]int{s.Len(), s.Dim()})
	require.Equal(t, "simplex:n=4", mspec.String(m))

	for spec, want := range map[string]string{
		"grassmann:n=3,p=3": `p="3" is not an integer in [1, 2]`, "grassmann:n=3,p=4": `p="4" is not an integer in [1, 2]`,
		"grassmann:n=1,p=1": `n="1" is not an integer in [2,`, "grassmann:n=4": "p is required",
		"grassmann:n=4,p=2,retr=cayley": "(want qr, polar or exp)", "simplex:n=1": `n="1" is not an integer in [2,`,
		"simplex": "n is required", "simplex:n=3,retr=qr": `unknown setting "retr"`,
	} {
		_, err := mspec.New(spec)
		require.ErrorIs(t, err, mspec.ErrBadSpec, spec)
		require.ErrorContains(t, err, want, spec)
	}
}

// TestTooLarge: a spec whose point would not fit in memory is an error
// naming the count, not a fatal out-of-memory failure; the largest
// allowed sizes' products are checked without allocating.
func TestTooLarge(t *testing.T) {
	for _, text := range []string{"spd:n=1048576", "stiefel:n=1048576,p=1048576", "euclid:r=1048576,c=1024", "grassmann:n=1048576,p=1000"} {
		_, err := mspec.New(text)
		if err == nil || !strings.Contains(err.Error(), "2 GiB") {
			t.Errorf("%s: got %v, want an error about the size", text, err)
		}
	}
}
