package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rhgd/rhgd/internal/stagetime"
)

type stageTime = stagetime.Stage

// stagesGroup is the group of the stage profiles, which the report writes
// as its own section (writeStages) rather than as a group of cases.
const stagesGroup = "stages"

// stageKernels are the profiled kernels in the report's order: the case's
// op (also the anchor #stages-<op> that targets link to), a title and what
// each stage holds.
var stageKernels = []struct{ op, title, gemm, note string }{
	{"expm", "Expm, the exponential of a general matrix (the expm group's input)", "one n×n GEMM (2n³)",
		"*checks, structure*: finiteness, bandwidth, the reducible structure, the copy. " +
			"*degree: norms, ℓ*: Al-Mohy–Higham's choice of degree and scaling besides its products (1-norms, dlacn2 estimates from products with vectors, ℓ's chain 1ᵀ|A|^p, the scaling). " +
			"*degree: A², A⁴, A⁶ (A⁸)*: the powers the choice forms, and A³ where it weighs Taylor's T_18 against r_m (×k: products per call). " +
			"*Padé U, V*: the remaining products and sums of r_m. *LU solve*: (V − U)⁻¹ 2U by dgetrf and dgetrs. " +
			"(*Taylor T_m*, in their place where Expm takes it: Bader–Blanes–Casas's Taylor polynomial T_m(2^−s A), no solve; taken where A needs no scaling for it, " +
			"and where T_18 costs fewer products than r_m and squares no more often, as on this input.) " +
			"*squarings*: the s squarings with the structure restored, and the overflow check. " +
			"Products below 768³ run on one thread (blas's one-thread windows), and so does the GEMM here; scipy.linalg.expm does the same work with OpenBLAS on every thread."},
	{"lyapsym", "LyapSym, A X + X A = C with A SPD (the lyapunov group's input)", "one n×n GEMM (2n³)",
		"*eigendecomposition*: A = Vᵀ diag(λ) V (dsyevd, or the C tridiagonal-QL solver at small n) and the check that no λ_i + λ_j vanishes. " +
			"*eigenpair refinement*: for κ(A) ≥ 64, the ≤ 8 smallest pairs refined by residuals in twice the working precision (lapackx's refineSmallEig). " +
			"*congruences*: V C Vᵀ and Vᵀ X̃ V (×2), 3n³ flops each (two GEMMs each below n = 100). " +
			"*Hadamard scaling*: X̃ = (V C Vᵀ) ⊘ (λ_i + λ_j) on one triangle. *checks*: C's symmetry, and X's finiteness where max|X̃| does not bound it."},
	{"hinv", "One HINV epoch of the synthetic problem (n = 2d, r = d/2.5, S = 20; the epoch group's case)", "one d×d GEMM (2d³)",
		"One Step from the epoch's start, timed by the solver's own stage marks: " +
			"*lower steps*: S = 20 times GradGy and the SPD retraction; *hypergradient estimate*: HINV's HessGyInv (reduction, eigendecomposition), the cross derivative and the upper gradients, at the lower steps' end point; " +
			"*upper step and f*: f, the step and the Stiefel retraction. The problem's own stage benchmarks are BenchmarkEpochStages and BenchmarkEpochStageFloors in problems/synthetic."},
}

// writeStages writes the stage profiles: per kernel a table of its stages
// by size, each as time, multiple of one GEMM of the same order timed in
// the same call, and share of the kernel's time.
func writeStages(b *strings.Builder, res []Result) {
	var found bool
	for _, r := range res {
		found = found || r.Case.Group == stagesGroup
	}
	if !found {
		return
	}
	b.WriteString("## Stage profiles\n\n" +
		"Each kernel times its stages as it runs them (marks in the kernel's code, internal/stagetime), and in the same call one GEMM of the same order " +
		"through blas, on the threads the kernel's own products get. A cell is the stage's mean time per call · its multiple of that GEMM · its share of the kernel, " +
		"and (×k) when the stage ran in k pieces per call. *rest* is the kernel's return after its last stage. " +
		"Unmet targets link here.\n\n")
	for _, k := range stageKernels {
		var rows []*Result
		for i := range res {
			if r := &res[i]; r.Case.Group == stagesGroup && r.Case.Op == k.op {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "<a id=\"stages-%s\"></a>\n\n### %s\n\n%s\n\n| stage |", k.op, k.title, k.note)
		var names []string
		for _, r := range rows {
			fmt.Fprintf(b, " %s |", r.Case.Size)
			for _, s := range r.Stages {
				if s.Name != stageGEMM && !slices.Contains(names, s.Name) {
					names = append(names, s.Name)
				}
			}
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(rows)) + "\n")
		for _, name := range names {
			fmt.Fprintf(b, "| %s |", name)
			for _, r := range rows {
				i := slices.IndexFunc(r.Stages, func(s stageTime) bool { return s.Name == name })
				if i < 0 {
					b.WriteString(" — |")
					continue
				}
				s := r.Stages[i]
				fmt.Fprintf(b, " %s · %s · %.0f%%", fmtSeconds(s.Seconds), fmtGEMMs(s.Seconds, stageSeconds(r, stageGEMM)), 100*s.Seconds/kernelSeconds(r))
				if math.Abs(s.PerCall-1) > 0.01 {
					fmt.Fprintf(b, " (×%.3g)", s.PerCall)
				}
				b.WriteString(" |")
			}
			b.WriteString("\n")
		}
		b.WriteString("| **kernel** |")
		for _, r := range rows {
			if r.Err != "" {
				fmt.Fprintf(b, " error: %s |", oneLine(r.Err))
				continue
			}
			fmt.Fprintf(b, " **%s** · %s |", fmtSeconds(kernelSeconds(r)), fmtGEMMs(kernelSeconds(r), stageSeconds(r, stageGEMM)))
		}
		fmt.Fprintf(b, "\n| %s |", k.gemm)
		for _, r := range rows {
			fmt.Fprintf(b, " %s |", fmtSeconds(stageSeconds(r, stageGEMM)))
		}
		b.WriteString("\n\n")
	}
}

// stageSeconds is r's mean time per call of the stage name (NaN if none).
func stageSeconds(r *Result, name string) float64 {
	for _, s := range r.Stages {
		if s.Name == name {
			return s.Seconds
		}
	}
	return math.NaN()
}

// kernelSeconds is r's time per call in the kernel: every stage but the
// GEMM (NaN without stages).
func kernelSeconds(r *Result) float64 {
	t := math.NaN()
	for _, s := range r.Stages {
		if s.Name != stageGEMM {
			if math.IsNaN(t) {
				t = 0
			}
			t += s.Seconds
		}
	}
	return t
}

func fmtGEMMs(t, gemm float64) string {
	switch r := t / gemm; {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "— GEMM"
	case r >= 10:
		return fmt.Sprintf("%.0f GEMM", r)
	default:
		return fmt.Sprintf("%.2g GEMM", r)
	}
}

// hasStages reports whether res holds the stage profile of op.
func hasStages(res []Result, op string) bool {
	return slices.ContainsFunc(res, func(r Result) bool { return r.Case.Group == stagesGroup && r.Case.Op == op && r.Err == "" })
}
