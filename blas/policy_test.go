package blas_test

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// programBLAS is a program's own choice of blas64 implementation.
type programBLAS struct{ gonum.Implementation }

// manifold is what the policy test does with each manifold.
type manifold interface {
	Len() int
	RandPoint(dst []float64, rnd *rand.Rand)
	RandTangent(dst, x []float64, rnd *rand.Rand)
	Retract(dst, x, u []float64, t float64) error
}

// TestStartupPolicy: building rhgd's manifolds and computing on them
// changes nothing process-wide (the package doc's policy). A program that
// chose its own blas64 implementation and OpenBLAS thread count keeps
// both, rhgd computes on its own backend meanwhile, and a later Init still
// succeeds, once. It runs in a process of its own, since Init is once per
// process.
func TestStartupPolicy(t *testing.T) {
	switch os.Getenv("RHGD_POLICY_HELPER") {
	case "guest":
		startupPolicy(t, false)
		return
	case "owner":
		startupPolicy(t, true)
		return
	}
	for _, mode := range []string{"guest", "owner"} {
		shared := "" // unset
		if mode == "owner" {
			shared = "0"
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestStartupPolicy$", "-test.v")
		cmd.Env = append(os.Environ(), "RHGD_POLICY_HELPER="+mode, "RHGD_THREADS=", "RHGD_SHARED="+shared,
			"OPENBLAS_NUM_THREADS=", "OMP_NUM_THREADS=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", mode, out)
		require.Contains(t, string(out), "--- PASS: TestStartupPolicy", mode)
	}
}

// startupPolicy is TestStartupPolicy's process. With owner (RHGD_SHARED=0
// set explicitly: the user asks rhgd to own OpenBLAS) the first use sets
// the thread count as Init does, and still leaves blas64 alone.
func startupPolicy(t *testing.T, owner bool) {
	var x gblas.Float64 = programBLAS{}
	blas64.Use(x)
	blas.SetNativeThreads(3) // the host's count; a no-op in a pure-Go build
	hostThreads := blas.NativeThreads()
	if owner && len(blas.Available()) > 1 { // a native library to own
		hostThreads = blas.PhysicalCores()
	}

	c, err := coupling.New([]float64{0.25, 0.75, 1}, []float64{1, 1})
	require.NoError(t, err)
	// Sizes that reach the native library, inside and outside the
	// one-thread windows.
	for _, m := range []manifold{spd.New(12), stiefel.New(200, 80), c, euclid.New(3, 4)} {
		rnd := rand.New(rand.NewPCG(1, 2))
		p, u, q := make([]float64, m.Len()), make([]float64, m.Len()), make([]float64, m.Len())
		m.RandPoint(p, rnd)
		m.RandTangent(u, p, rnd)
		require.NoError(t, m.Retract(q, p, u, 0.1), "%T", m)
		require.Equal(t, x, blas64.Implementation(), "%T changed blas64", m)
		require.Equal(t, hostThreads, blas.NativeThreads(), "%T changed the thread count", m)
	}
	require.NotEqual(t, x, blas.Impl(), "rhgd computes on its own backend")

	require.NoError(t, blas.Init(blas.Config{}), "Init after computations")
	require.Equal(t, blas.Impl(), blas64.Implementation(), "Init hands blas64 to rhgd")
	require.ErrorIs(t, blas.Init(blas.Config{}), blas.ErrStarted)
}
