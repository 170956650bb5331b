//go:build cgo && !purego

package blas

import (
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/blas/testblas"

	"github.com/rhgd/rhgd/internal/race"
)

// forHybrids runs suite against the hybrid three ways: all native, all
// Go, and with the default crossovers, so that the gonum suites check both
// sides of every branch against gonum's reference results.
func forHybrids(t *testing.T, suite func(t *testing.T, h Hybrid)) {
	all := NewHybrid()
	all.Level2Cutoff, all.Level3Cutoff = 0, 0
	none := NewHybrid()
	none.Level2Cutoff, none.Level3Cutoff = 1<<62, 1<<62
	for name, h := range map[string]Hybrid{"native": all, "go": none, "default": NewHybrid()} {
		t.Run(name, func(t *testing.T) { suite(t, h) })
	}
}

func TestHybridLevel3(t *testing.T) {
	forHybrids(t, func(t *testing.T, h Hybrid) {
		testblas.TestDgemm(t, h)
		testblas.DsymmTest(t, h)
		testblas.DsyrkTest(t, h)
		testblas.Dsyr2kTest(t, h)
		testblas.DtrmmTest(t, h)
		testblas.DtrsmTest(t, h)
	})
}

func TestHybridLevel2(t *testing.T) {
	forHybrids(t, func(t *testing.T, h Hybrid) {
		testblas.DgemvTest(t, h)
		testblas.DsymvTest(t, h)
		testblas.DgerTest(t, h)
		testblas.DtrsvTest(t, h)
		testblas.DtrmvTest(t, h)
	})
}

// threadProbe stands in for the native library and records the library's
// thread count when a call reaches it, without computing anything.
type threadProbe struct {
	gonum.Implementation
	seen *int
}

func (p threadProbe) Dgemm(gblas.Transpose, gblas.Transpose, int, int, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dsymm(gblas.Side, gblas.Uplo, int, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dsyrk(gblas.Uplo, gblas.Transpose, int, int, float64, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dsyr2k(gblas.Uplo, gblas.Transpose, int, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dtrmm(gblas.Side, gblas.Uplo, gblas.Transpose, gblas.Diag, int, int, float64, []float64, int, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dtrsm(gblas.Side, gblas.Uplo, gblas.Transpose, gblas.Diag, int, int, float64, []float64, int, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dgemv(gblas.Transpose, int, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dsymv(gblas.Uplo, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dger(int, int, float64, []float64, int, []float64, int, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dtrsv(gblas.Uplo, gblas.Transpose, gblas.Diag, int, []float64, int, []float64, int) {
	*p.seen = nativeThreads()
}
func (p threadProbe) Dtrmv(gblas.Uplo, gblas.Transpose, gblas.Diag, int, []float64, int, []float64, int) {
	*p.seen = nativeThreads()
}

// TestHybridWindows: with two threads set, each native call runs on the
// thread count its size calls for. The products of domain adaptation
// (Π(157,295) × SPD(128)) run on one thread, where OpenBLAS's threads cost
// more than they give and, beside busy processes, a time slice per call;
// calls from the windows' bounds on run on both.
func TestHybridWindows(t *testing.T) {
	restore(t)
	if shared.Load() {
		t.Skip("RHGD_SHARED: serial windows are off")
	}
	require.NoError(t, SetThreads(2))
	useTable(t, fallbackTable(2)) // the bounds below are its
	var seen int
	h := Hybrid{Native: threadProbe{seen: &seen}, Level2Cutoff: level2Cutoff, Level3Cutoff: level3Cutoff}
	const (
		N, T, U = gblas.NoTrans, gblas.Trans, gblas.Upper
		L, R    = gblas.Left, gblas.Right
		Lo, NU  = gblas.Lower, gblas.NonUnit
	)
	gemm := func(m, n, k int) func() { return func() { h.Dgemm(N, N, m, n, k, 1, nil, k, nil, n, 0, nil, n) } }
	symm := func(n int) func() { return func() { h.Dsymm(L, U, n, n, 1, nil, n, nil, n, 0, nil, n) } }
	syrk := func(n int) func() { return func() { h.Dsyrk(U, T, n, n, 1, nil, n, 0, nil, n) } }
	syr2k := func(n int) func() { return func() { h.Dsyr2k(U, T, n, n, 1, nil, n, nil, n, 0, nil, n) } }
	trmm := func(n int) func() { return func() { h.Dtrmm(R, Lo, T, NU, n, n, 1, nil, n, nil, n) } }
	trsm := func(m, n int) func() { return func() { h.Dtrsm(L, Lo, N, NU, m, n, 1, nil, m, nil, n) } }
	gemv := func(m, n int) func() { return func() { h.Dgemv(N, m, n, 1, nil, n, nil, 1, 0, nil, 1) } }
	symv := func(n int) func() { return func() { h.Dsymv(U, n, 1, nil, n, nil, 1, 0, nil, 1) } }
	ger := func(n int) func() { return func() { h.Dger(n, n, 1, nil, 1, nil, 1, nil, n) } }
	trsv := func(n int) func() { return func() { h.Dtrsv(Lo, N, NU, n, nil, n, nil, 1) } }
	trmv := func(n int) func() { return func() { h.Dtrmv(Lo, N, NU, n, nil, n, nil, 1) } }
	for _, c := range []struct {
		name string
		call func()
		want int
	}{
		// Domain adaptation's calls.
		{"gemm 128³", gemm(128, 128, 128), 1},
		{"gemm 157×295×128", gemm(157, 295, 128), 1},
		{"gemm 295×128×157", gemm(295, 128, 157), 1},
		{"trsm 128³", trsm(128, 128), 1},
		{"trmm 128³", trmm(128), 1},
		{"syrk 128³", syrk(128), 1},
		{"syr2k 128³", syr2k(128), 1},
		{"gemv 157×295", gemv(157, 295), 1},
		// Sizes that OpenBLAS keeps on one thread itself skip the switch.
		{"gemm 64³", gemm(64, 64, 64), 2},
		{"trsm 16³", trsm(16, 16), 2},
		// dsymm and dsyr2k are threaded at every size.
		{"symm 16³", symm(16), 1},
		{"syr2k 16³", syr2k(16), 1},
		// The bounds of the windows.
		{"gemm below its bound", gemm(1, 1, ThreadsFrom(CallGemm)-1), 1},
		{"gemm at its bound", gemm(1, 1, ThreadsFrom(CallGemm)), 2},
		{"gemm 1000×1000×1000", gemm(1000, 1000, 1000), 2},
		{"symm 2000³", symm(2000), 2},
		{"syrk 2000³", syrk(2000), 2},
		{"syr2k 2000³", syr2k(2000), 2},
		{"trmm 2000³", trmm(2000), 2},
		{"trsm 2000³", trsm(2000, 2000), 2},
		{"trsm below its bound", trsm(1, ThreadsFrom(CallTrsm)-1), 1},
		{"trsm at its bound", trsm(1, ThreadsFrom(CallTrsm)), 2},
		{"gemv 1000²", gemv(1000, 1000), 1},
		{"gemv at its bound", gemv(1, ThreadsFrom(CallGemv)), 2},
		{"symv 1000²", symv(1000), 1},
		{"ger 1000²", ger(1000), 1},
		{"trsv 1000²", trsv(1000), 1},
		{"trmv 1000²", trmv(1000), 1},
		{"gemv 8192²", gemv(8192, 8192), 2},
		{"symv 8192²", symv(8192), 2},
		{"ger 8192²", ger(8192), 2},
		{"trsv 8192²", trsv(8192), 2},
		{"trmv 8192²", trmv(8192), 2},
	} {
		seen = 0
		c.call()
		if seen != c.want {
			t.Errorf("%s ran on %d threads, want %d", c.name, seen, c.want)
		}
		require.Equal(t, 2, nativeThreads(), "%s: the window closed", c.name)
	}
	if !race.Enabled {
		require.Zero(t, testing.AllocsPerRun(10, gemm(128, 128, 128)), "a window allocates nothing")
	}
}
