package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchGroup runs the group's cases as sub-benchmarks op=<op>/<size>: the
// sizes of `make bench`, or with -short those of `make bench-quick`.
func benchGroup(b *testing.B, group string) {
	sizes := FullSizes()
	if testing.Short() {
		sizes = QuickSizes()
	}
	for _, c := range Cases(sizes) {
		if c.Group != group {
			continue
		}
		b.Run("op="+c.Op+"/"+c.Size, func(b *testing.B) {
			b.ReportAllocs()
			p, err := c.Prepare("")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := p.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The cases of each group at the sizes of `make bench` (see Cases).
func BenchmarkSPD(b *testing.B)      { benchGroup(b, "spd") }
func BenchmarkLyapunov(b *testing.B) { benchGroup(b, "lyapunov") }
func BenchmarkExpm(b *testing.B)     { benchGroup(b, "expm") }
func BenchmarkStiefel(b *testing.B)  { benchGroup(b, "stiefel") }
func BenchmarkCoupling(b *testing.B) { benchGroup(b, "coupling") }
func BenchmarkEpoch(b *testing.B)    { benchGroup(b, "epoch") }
func BenchmarkBatch(b *testing.B)    { benchGroup(b, "batch") }

// TestQuickCases runs every case of `make bench-quick` once, without
// peers: each prepares and runs, and its output is finite.
func TestQuickCases(t *testing.T) {
	res := Run(Config{Sizes: QuickSizes(), Timing: Timing{Rounds: 1, MinRounds: 1}, Dir: t.TempDir()})
	require.Len(t, res, len(Cases(QuickSizes())))
	for _, r := range res {
		require.Empty(t, r.Err, r.Case.Name())
		require.Len(t, r.Seconds, 1, r.Case.Name())
		require.Greater(t, r.Median(), 0.0, r.Case.Name())
	}
}

func TestFitExponent(t *testing.T) {
	ns := []float64{200, 500, 1000, 2000}
	ts := make([]float64, len(ns))
	for i, n := range ns {
		ts[i] = 3e-9 * n * n * n
	}
	require.InDelta(t, 3, fitExponent(ns, ts), 1e-12)
	ts[3] *= 2 // one doubled time bends the fit upwards
	require.Greater(t, fitExponent(ns, ts), 3.1)
	require.True(t, isNaN(fitExponent([]float64{100, 100}, []float64{1, 2})), "one distinct size")
}

func isNaN(v float64) bool { return v != v }

func TestMedian(t *testing.T) {
	v := []float64{5, 1, 3}
	require.Equal(t, 3.0, median(v))
	require.Equal(t, []float64{5, 1, 3}, v, "median must not reorder its input")
	require.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
	require.True(t, isNaN(median(nil)))
}

func TestDerivedCrossover(t *testing.T) {
	cs := []Crossover{{Op: "dgemm", N: 2, Go: 1, Native: 2}, {Op: "dgemm", N: 4, Go: 2, Native: 1},
		{Op: "dgemm", N: 8, Go: 1, Native: 3}, {Op: "dgemm", N: 16, Go: 5, Native: 1}, {Op: "dgemm", N: 32, Go: 9, Native: 1}}
	require.Equal(t, 16, derivedCrossover(cs, "dgemm"), "the last size where Go wins resets the crossover")
	require.Equal(t, 0, derivedCrossover(cs, "dgemv"))
	require.Equal(t, 4, cubeRootCeil(32))
	require.Equal(t, 128, sqrtCeil(128*128))
}

// fake returns a result of op at size taking t seconds, with peers at the
// given ratios.
func fake(group, op, size, floor string, n, t float64, peers map[string]float64) Result {
	c := &Case{Group: group, Op: op, Size: size, N: n, Floor: floor, Exponent: 3}
	r := Result{Case: c, Seconds: []float64{t, t, t}}
	for name, ratio := range peers {
		r.Peers = append(r.Peers, PeerResult{Name: name, Seconds: []float64{t * ratio}, Ratios: []float64{ratio}, Diff: 1e-16})
	}
	return r
}

// TestTargets judges the targets on made-up results whose answers are
// known.
func TestTargets(t *testing.T) {
	res := []Result{fake("spd", "eig", "n=2000", "", 2000, 1, nil)}
	for _, op := range symFuncs {
		res = append(res, fake("spd", op, "n=2000", "eig", 2000, 1.1, map[string]float64{"numpy." + op: 1.3}))
	}
	res[2].Seconds = []float64{1.2, 1.2, 1.2} // logsym at 1.2× eig, numpy at 1.3·1.1/1.2
	judge := func(i int) (string, bool, bool) { return targets[i].judge(res) }
	v, met, ok := judge(0)
	require.True(t, ok)
	require.False(t, met)
	require.Equal(t, "worst logsym: 1.20× eig", v)
	v, met, ok = judge(1)
	require.True(t, ok)
	require.True(t, met, v) // peer ratios are per round: 1.3 each
	_, _, ok = judge(2)
	require.False(t, ok, "n = 50 was not measured")

	dir := t.TempDir()
	path, err := WriteReport(dir, NewRunInfo(2), res)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(b)
	require.Contains(t, s, "| SPD exp/log/sqrt at n = 2000 within 1.15× of the eigensolver | worst logsym: 1.20× eig | **not met** |")
	require.Contains(t, s, "| n=2000 | 1.2 s | 1.20× | 1.30× (1.43 s) | 1e-16 (numpy.logsym) |")
	require.FileExists(t, filepath.Join(dir, "results.json"))
}

// TestPeer checks the protocol with the Python worker and that both sides
// fingerprint alike: rhgd's product and numpy's agree to rounding. It
// needs /usr/bin/python3 with numpy (`make bench-deps`).
func TestPeer(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with numpy")
	}
	p, err := StartPeer("/usr/bin/python3", "peers.py", 1, "")
	require.NoError(t, err)
	defer p.Close()
	require.Contains(t, p.Hello.Ops, "numpy.gemm")

	c := spdCases(30)[0] // gemm
	require.Equal(t, "gemm", c.Op)
	prep, err := c.Prepare(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, prep.Run())
	out := prep.Output()
	f, err := p.Load("k", "numpy.gemm", prep.Files, nil)
	require.NoError(t, err)
	require.InDelta(t, fingerprint(out), f, 1e-13*norm(out)*weightNorm(len(out)))

	s, err := p.Time("k", 0)
	require.NoError(t, err)
	require.Greater(t, s, 0.0)
	_, err = p.Load("x", "numpy.nosuch", prep.Files, nil)
	require.ErrorContains(t, err, "unknown op")
	_, err = p.Time("x", 0)
	require.ErrorContains(t, err, "before a successful load")
	require.NoError(t, p.Drop())
	_, err = p.Time("k", 0)
	require.Error(t, err, "drop forgets every call")
	require.True(t, strings.HasPrefix(fmt.Sprint(err), "bench: peer:"))
}
