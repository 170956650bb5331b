package bench

import (
	"fmt"
	"math"
	"strings"
)

// Why each target is not met, as far as it is known: the report shows it
// beside an unmet target, with a link to the stage profile that shows it.
// The figures are from the runs named; a new finding belongs here.
const (
	whySymFloor = "The function adds V f(Λ) Vᵀ (a rank-n syrk, n³ flops against dsyevd's 9n³) to the eigendecomposition; " +
		"met at 1.08× on 2026-11-23. lapackx's BenchmarkSymFuncStages splits it."
	whySymNumpy2000 = "rhgd's 2-thread fallback table runs dsyevd on one thread at every order (beside busy processes a threaded " +
		"dsyevd ran at 0.08–0.41× one thread's speed), numpy's and torch's on two. With this machine's quiet profile (rhgd tune -load 0, " +
		"bench/results/2026-11-27-tuned) the three ran at 1.11–1.17× numpy: both then run the same dsyevd, 65–89% of the time there, " +
		"so 1.2× would need a faster eigensolver."
	whySymNumpy50 = "Met at 2.14× on 2026-11-23; at n = 50 the time is the eigensolver (the C tridiagonal-QL solver, lapackx's " +
		"BenchmarkEigDriver) and the call, so a miss is most likely load. Not investigated."
	whySPDExp = "The L-congruence Exp needs two potrf, the reduction, a trmm and a syrk besides the eigensolver: at n = 1000 those " +
		"alone took 51–59 ms against a 1.3× budget of about 28 ms (issue 12; spd's BenchmarkSPDExpStages)."
	whyLyap1000 = "Eig-bound: the eigendecomposition is 50–75% of the solve (the stage profiles and lapackx's BenchmarkLyapStages, 2026-11-25)."
	whyLyap500  = "The eigendecomposition is 50–75% of the solve and the two congruences most of the rest (the stage profiles, " +
		"2026-11-25), so 8× needs both faster; measured 3.5–8.8× scipy under load on 2026-11-25."
	whyLyapEig = "Out of reach of the algorithm, not of tuning: the solve adds two congruences of 3n³ flops each (a trmm and a " +
		"syr2k, at about GEMM's rate per flop: 3.2–3.6 GEMMs for both) to the eigendecomposition, while the eigendecomposition " +
		"costs 7 GEMMs at n = 200 (all on one thread), 4.1 at 500 and 3.2 at 1000 (the products on two threads, dsyevd on " +
		"one), so the floor is 1 + 3·GEMM/eig ≈ 1.4×, 1.7× and 1.95×; measured 1.6–1.8×, 1.9–2.0× and 2.1× (lapackx's " +
		"BenchmarkLyapStages, interleaved, 2026-11-27, load average 4–6). The refinement of the smallest eigenpairs and the " +
		"checks add 7–20% of eig. Meeting it needs fewer flops per congruence; several right-hand sides share one " +
		"eigendecomposition through LyapSym.SolveMany (rhgd_lyapunov_sym_many): 2.1× k separate solves at k = 4, 2.8–3.0× " +
		"at k = 16 (n = 200)."
	whyCoupling         = "Met at 5.24× on 2026-11-23; not investigated since."
	whyTorchMetricEpoch = "Met at 1.43× on 2026-11-27 (2.42 ms against 3.46). At d = 10 an epoch is operator dispatch, not " +
		"arithmetic: rhgd.torch replays ∇_y g's recorded operations in the lower loop (59 µs a step against 107) and " +
		"makes about 17 crossings of 10–15 µs per epoch; the CG products (ten per epoch, one crossing each) cost what the hand " +
		"loop's do. A miss is most likely load."
	whyTorchSPDNet = "Out of reach on this engine by Amdahl's law: the eigen-layers are a fifth to a third of the eigh " +
		"model's epoch, the rest (the head's lower loop, CG's Hessian products, the BiMaps, the crossings) being the same " +
		"for both models, so that eigen-layers at no cost at all would gain the bound shown (1.24–1.55× measured on " +
		"2026-11-27, never 2×). At these shapes (60 matrices of order 6 and 3 after the BiMaps) rhgd's batched " +
		"eigensolver takes 2 µs per 6 × 6 and 0.6 µs per 3 × 3 matrix, 1.5× torch.linalg.eigh's, and the ops' Python " +
		"autograd functions cost about eigh's backward (bench/torch_symfn.py: 1.0–1.6× per call); the kernels pull " +
		"ahead from b = 1000. The ops' value for SPDNet is exact derivatives at repeated eigenvalues (NaN-free at M = I)."
	whyQRPolar = "Unresolved: a helper measured 0.98× polar under load, the quiet 2026-11-23 run 1.75× at 10000×100; " +
		"the gap between the two was not explained (issue 12)."
	whyQRHouseholder = "Householder QR itself was faster on 2026-11-23 (30 ms, not the 42 ms of the target's baseline): " +
		"1.59× at 10000×100 there against 3.3× under load; unresolved (issue 12)."
	whyExpm = "Expm now takes Bader–Blanes–Casas's Taylor T_18 (no LU solve) on this input at all three orders, with r_13's " +
		"squarings (s = 1, 2, 2; it takes T_18 only where it squares no more often than r_13, since each extra squaring doubles the " +
		"evaluation's rounding as a backward error in A): 1.16×, 1.21× and 1.20× the Padé path at n = 50, 200 and 500 in paired calls " +
		"(2026-11-27, load 4–5 on 2 cores), and 1.40–1.45×, 1.38–1.43× and 1.24–1.26× scipy with every library on one thread (report " +
		"-threads 1, two runs). With two threads the ratio at n = 200 and 500 is the thread table's: rhgd's products below 768³ stay on " +
		"one thread (the 2-core fallback table) while scipy's run on two, which took 35 ms at n = 500 on a quieter machine (load 0.9) " +
		"against rhgd's 46–53 ms now (0.62× there before this change, all on Padé); under load scipy's two threads lose more, and the " +
		"ratio swings (1.4–2.3× in today's runs at load 4–5)."
	whyExponent = "Below 3 because BLAS efficiency still rises between d = 200 and 1000, not a d³ Go loop: ≥ 95% of the epoch " +
		"is in BLAS/LAPACK, and gemm itself fits 2.82 on these sizes (issue 12)."
	whyBatchEig = "At n = 100 both sides run one eigensolver per matrix on two threads (rhgd its C QL solver, about 1.3× dsyevd " +
		"there, torch LAPACK's dsyevd under OpenMP), so the margin is the solver and torch's per-matrix overhead: 1.99× at " +
		"b = 1000 and 2.75× at b = 10000 in a make bench run of 2026-11-25 (18:53), 2.2× earlier under load. At the line, not investigated further."
	whyHINVEpoch = "The epoch is BLAS-bound (≥ 95% of its CPU time in OpenBLAS/LAPACK, pprof of BenchmarkRHGDEpochScaling, 2026-11-25): " +
		"20 lower steps at 3.4–4.0 GEMMs each against a 2.17-GEMM flop floor (the retraction's Cholesky, trsm and syrk run below GEMM speed) " +
		"and the HINV estimate at about 24 GEMMs (an eigendecomposition, a dsygst, congruences). The peer computes in float32, twice the " +
		"flops per cycle. The opt-in float32 lower loop (hinv32: 2.3–2.9 GEMMs a step) gained 1.1–1.3× " +
		"(problems/synthetic BenchmarkEpochStageFloors; stage profile below), not the 1.4–1.7× still missing. hinv32's HINV " +
		"eigendecomposition and its two congruences now run in float32 (lapackx.EigSym32, ssyevd: 79 ms against dsyevd's 150 at " +
		"n = 1000; strmm and sgemm): the estimate at 0.82–0.84× and the epoch at 0.91× its time (report runs against the float64 " +
		"estimate, 4 interleaved pairs, median pair ratio; BenchmarkEpoch32Eig 0.93–0.95×; 2026-11-27, load 1–2), f within 5.9e-8 " +
		"of float64's (3.8e-8 before). By the 1.82× of 2026-11-25 that is 1.9–2.0× the peer, at the line; not remeasured against " +
		"torch (absent on that machine). Refining float32 to float64 instead (Ogita–Aishima, lapackx.RefinedEigSym) costs 3.5 GEMMs " +
		"a step and 3 steps on this spectrum: 2.2× dsyevd's time, 1.5× the estimate's. M A M and the two reductions L⁻¹·L⁻ᵀ (4d³) " +
		"stay float64. With this machine's quiet thread profile (rhgd tune -load 0) hinv32 ran at 2.17× torch's float32 epoch " +
		"(bench/results/2026-11-27-tuned): the 2-thread fallback keeps the lower loop's products below 768³ and dsyevd on one thread."
)

// hinvEpochOps are the epoch cases that issue 20 §3's target accepts: the
// float64 HINV epoch, and opt-in mixed-precision variants of it when their
// final f agrees with float64's to hinvAgreeTol (Result.Agreement).
var hinvEpochOps = []string{"hinv", "hinv32", "hinvmixed"}

const hinvAgreeTol = 1e-6

// judgeHINVEpoch is issue 20 §3's target: the HINV epoch at d = 1000 ≥ 2×
// the authors' PyTorch formulation in float32, by the best of the
// accepted cases.
func judgeHINVEpoch(res []Result) (string, bool, bool) {
	best, bestOp := math.NaN(), ""
	var parts []string
	for _, op := range hinvEpochOps {
		v := peerRatio(res, op, "d=1000", "torch.epoch32")
		if math.IsNaN(v) {
			continue
		}
		if op != "hinv" {
			a := find(res, op, "d=1000").Agreement
			if a == nil || !(*a <= hinvAgreeTol) {
				agree := "not reported"
				if a != nil {
					agree = fmt.Sprintf("%.1e", *a)
				}
				parts = append(parts, fmt.Sprintf("%s %.2f× not counted (f agreement %s > %.0e)", op, v, agree, hinvAgreeTol))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %.2f× (f within %.1e)", op, v, *a))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.2f×", op, v))
		}
		if math.IsNaN(best) || v > best {
			best, bestOp = v, op
		}
	}
	if math.IsNaN(best) {
		return "", false, false
	}
	return fmt.Sprintf("best %s: %.2f×; %s", bestOp, best, strings.Join(parts, ", ")), best >= 2, true
}

func init() {
	targets = append(targets, target{"HINV epoch at d = 1000 ≥ 2× the authors' PyTorch formulation in float32 " +
		"(float64, or an opt-in mixed-precision case whose f agrees to 1e-6; issue 20)", judgeHINVEpoch, whyHINVEpoch, "hinv"})
}
