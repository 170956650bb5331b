package bench

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/stagetime"
	"github.com/rhgd/rhgd/solver"
)

func targetByPrefix(t *testing.T, prefix string) *target {
	t.Helper()
	for i := range targets {
		if strings.HasPrefix(targets[i].desc, prefix) {
			return &targets[i]
		}
	}
	t.Fatalf("no target %q", prefix)
	return nil
}

// TestHINVEpochTarget judges issue 20 §3's target on made-up results: the
// float64 epoch alone, then a mixed-precision case that counts only when
// its f agrees to 1e-6.
func TestHINVEpochTarget(t *testing.T) {
	tg := targetByPrefix(t, "HINV epoch at d = 1000")
	epoch := func(op string, ratio float64) Result {
		return fake("epoch", op, "d=1000", "eig", 1000, 2, map[string]float64{"torch.epoch64": 2 * ratio, "torch.epoch32": ratio})
	}
	_, _, ok := tg.judge([]Result{epoch("hinv", 1.4), {Case: &Case{Group: stagesGroup, Op: "hinv", Size: "d=1000"}}})
	require.True(t, ok)
	_, _, ok = tg.judge([]Result{epoch("cg", 3)})
	require.False(t, ok, "no HINV epoch at d = 1000")

	res := []Result{epoch("hinv", 1.4)}
	v, met, ok := tg.judge(res)
	require.True(t, ok)
	require.False(t, met)
	require.Equal(t, "best hinv: 1.40×; hinv 1.40×", v)

	mixed := epoch("hinvmixed", 2.5)
	res = append(res, mixed)
	v, met, _ = tg.judge(res)
	require.False(t, met, "a mixed case without an agreement does not count")
	require.Equal(t, "best hinv: 1.40×; hinv 1.40×, hinvmixed 2.50× not counted (f agreement not reported > 1e-06)", v)

	far, near := 3e-6, 4e-8
	res[1].Agreement = &far
	v, met, _ = tg.judge(res)
	require.False(t, met)
	require.Contains(t, v, "hinvmixed 2.50× not counted (f agreement 3.0e-06 > 1e-06)")

	res[1].Agreement = &near
	v, met, _ = tg.judge(res)
	require.True(t, met)
	require.Equal(t, "best hinvmixed: 2.50×; hinv 1.40×, hinvmixed 2.50× (f within 4.0e-08)", v)

	// The float64 epoch alone at 2× or more meets it; the better case is named.
	res = []Result{epoch("hinv", 2.1), epoch("hinv32", 1.9)}
	res[1].Agreement = &near
	v, met, _ = tg.judge(res)
	require.True(t, met)
	require.True(t, strings.HasPrefix(v, "best hinv: 2.10×"), v)
}

// TestLyapEigTarget judges issue 32 §5's target on made-up results: the
// worst of the Lyapunov orders n ≥ 200 against eig at the same order, the
// smaller orders ignored, and not measured when an order lacks its eig.
func TestLyapEigTarget(t *testing.T) {
	tg := targetByPrefix(t, "Lyapunov (SPD coefficient) at n ≥ 200 within 1.3×")
	require.Equal(t, whyLyapEig, tg.why)
	require.Equal(t, "lyapsym", tg.profile)
	eig := func(n float64, s float64) Result { return fake("spd", "eig", fmt.Sprintf("n=%g", n), "", n, s, nil) }
	lyap := func(n float64, s float64) Result {
		return fake("lyapunov", "lyapsym", fmt.Sprintf("n=%g", n), "eig", n, s, nil)
	}
	res := []Result{eig(50, 1), eig(200, 1), eig(500, 2), eig(1000, 4),
		lyap(50, 3), lyap(100, 3), lyap(200, 1.2), lyap(500, 2.5), lyap(1000, 5.2)}
	v, met, ok := tg.judge(res)
	require.True(t, ok)
	require.True(t, met, "1.30× is within; n = 50 at 3× eig is below the target's orders")
	require.Equal(t, "worst n=1000: 1.30× eig (n=200 1.20×, n=500 1.25×, n=1000 1.30×)", v)

	res[6].Seconds = []float64{1.4, 1.4, 1.4}
	v, met, ok = tg.judge(res)
	require.True(t, ok)
	require.False(t, met)
	require.Equal(t, "worst n=200: 1.40× eig (n=200 1.40×, n=500 1.25×, n=1000 1.30×)", v)

	_, _, ok = tg.judge(append([]Result{eig(200, 1), eig(1000, 4)}, res[4:]...))
	require.False(t, ok, "n = 500 has no eig to compare with")
	_, _, ok = tg.judge(res[:6])
	require.False(t, ok, "no Lyapunov order ≥ 200")
}

// stageResult is a made-up stage profile with the given stage times, a
// GEMM of gemm seconds.
func stageResult(op, size string, gemm float64, stages ...stagetime.Stage) Result {
	st := append(stages, stagetime.Stage{Name: stageGEMM, Seconds: gemm, PerCall: 1})
	return Result{Case: &Case{Group: stagesGroup, Op: op, Size: size}, Seconds: []float64{1}, Stages: st}
}

// TestWhyAndStages checks that an unmet target's row says why and links to
// its stage profile when the run has it, that the profile's table reads
// stage time, GEMM multiple and share, and that the stage cases stay out
// of the groups, the scaling fits and find.
func TestWhyAndStages(t *testing.T) {
	res := []Result{
		fake("expm", "expm", "n=50", "gemm", 50, 0.1, map[string]float64{"scipy.expm": 1.3}),
		fake("expm", "expm", "n=200", "gemm", 200, 1, map[string]float64{"scipy.expm": 1.0}),
		fake("expm", "expm", "n=500", "gemm", 500, 10, map[string]float64{"scipy.expm": 0.8}),
		fake("lyapunov", "lyapsym", "n=1000", "eig", 1000, 1, map[string]float64{"scipy.lyapunov": 12}),
		stageResult("expm", "n=50", 1e-5,
			stagetime.Stage{Name: "degree", Seconds: 3e-5, PerCall: 1}, stagetime.Stage{Name: "LU solve", Seconds: 1e-5, PerCall: 1}),
		stageResult("expm", "n=200", 1e-4,
			stagetime.Stage{Name: "degree", Seconds: 2e-4, PerCall: 3}, stagetime.Stage{Name: "LU solve", Seconds: 2e-4, PerCall: 1}),
		stageResult("expm", "n=1000", 1e-4), // same size as no epoch or expm case
	}
	require.Equal(t, []string{"expm", "lyapunov"}, groups(res))
	for _, s := range scalings(res) {
		require.NotEqual(t, stagesGroup, s.Group)
	}
	require.Equal(t, "expm", find(res, "expm", "n=50").Case.Group)
	require.Nil(t, find(res, "expm", "n=1000"), "find skips the stage profiles")
	require.True(t, hasStages(res, "expm"))
	require.False(t, hasStages(res, "lyapsym"))

	path, err := WriteReport(t.TempDir(), NewRunInfo(2), res)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(b)
	require.Contains(t, s, "| General-matrix expm at n = 50, 200 and 500 ≥ 1.2× faster than scipy.linalg.expm (issue 20) | slowest n=500: 0.80× | **not met** | "+
		whyExpm+" [Stage profile](#stages-expm). |")
	require.Contains(t, s, "| Lyapunov (SPD coefficient) at n = 1000 ≥ 10× faster than scipy | 12.00× | met | |")
	require.Contains(t, s, "<a id=\"stages-expm\"></a>")
	require.NotContains(t, s, "stages-lyapsym", "no LyapSym profile in this run")
	require.Contains(t, s, "| stage | n=50 | n=200 | n=1000 |")
	require.Contains(t, s, "| degree | 30 µs · 3 GEMM · 75% | 200 µs · 2 GEMM · 50% (×3) | — |")
	require.Contains(t, s, "| LU solve | 10 µs · 1 GEMM · 25% | 200 µs · 2 GEMM · 50% | — |")
	require.Contains(t, s, "| **kernel** | **40 µs** · 4 GEMM | **400 µs** · 4 GEMM | **—** · — GEMM |")
	require.Contains(t, s, "| one n×n GEMM (2n³) | 10 µs | 100 µs | 100 µs |")

	// Without the profile in the run, the why says so.
	v := targetByPrefix(t, "Lyapunov (SPD coefficient) at n ≤ 500").whyText(res)
	require.Equal(t, whyLyap500+" (Its stage profile was not run.)", v)
	require.Equal(t, whyCoupling, targetByPrefix(t, "Coupling").whyText(res))
	for _, tg := range targets {
		require.NotEmpty(t, tg.why, tg.desc)
	}
}

// TestStageCases runs the quick stage profiles once: each marks the
// stages the report names and the GEMM, with positive times.
func TestStageCases(t *testing.T) {
	res := Run(Config{Sizes: QuickSizes(), Timing: Timing{Rounds: 1, MinRounds: 1}, Dir: t.TempDir(),
		Match: func(name string) bool { return strings.HasPrefix(name, stagesGroup+"/") }})
	require.Len(t, res, 3)
	want := map[string][]string{
		// n = 50: Taylor's T_18 with r_13's s = 1 (lapackx's choose).
		"expm":    {"checks, structure", "degree: norms, ℓ", "degree: A², A⁴, A⁶ (A⁸)", "Taylor T_m", "squarings", stageRest, stageGEMM},
		"lyapsym": {"eigendecomposition", "checks", "congruences", "Hadamard scaling", stageRest, stageGEMM},
		"hinv":    {solver.StageLower, solver.StageEstimate, solver.StageUpper, stageRest, stageGEMM},
	}
	// The Lyapunov case's A (κ = 10⁴ ≥ 64) has its smallest eigenpairs refined.
	want["lyapsym"] = append(want["lyapsym"], "eigenpair refinement")
	for _, r := range res {
		require.Empty(t, r.Err, r.Case.Name())
		var names []string
		for _, s := range r.Stages {
			names = append(names, s.Name)
			require.Greater(t, s.Seconds, 0.0, r.Case.Name()+" "+s.Name)
		}
		require.ElementsMatch(t, want[r.Case.Op], names, r.Case.Name())
	}
}

func TestFmtSecondsNegative(t *testing.T) {
	require.Equal(t, "-5 ms", fmtSeconds(-5e-3))
	require.Equal(t, "1.5 s", fmtSeconds(1.5))
	require.Equal(t, "—", fmtSeconds(math.NaN()))
}
