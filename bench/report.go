package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rhgd/rhgd/blas"
)

// RunInfo describes a run for its report.
type RunInfo struct {
	Date       time.Time
	Command    string
	Elapsed    time.Duration
	Threads    int
	Backend    blas.Info
	Peer       *PeerHello // nil: no peers
	Crossovers []Crossover
	// Torch is bench/torch_problems.py's run (nil: not run).
	Torch *TorchProblems
}

// NewRunInfo returns the run's description so far: the date and the
// backend, with every library on threads threads.
func NewRunInfo(threads int) *RunInfo {
	return &RunInfo{Date: time.Now().UTC(), Threads: threads, Backend: blas.CurrentInfo()}
}

// Failures counts the cases and peer calls that ended in an error.
func Failures(res []Result) int {
	n := 0
	for _, r := range res {
		if r.Err != "" {
			n++
		}
		for _, p := range r.Peers {
			if p.Err != "" {
				n++
			}
		}
	}
	return n
}

// WriteReport writes report.md, results.json and the scaling plots into
// dir and returns the report's path.
func WriteReport(dir string, info *RunInfo, res []Result) (string, error) {
	var b strings.Builder
	writeHeader(&b, info)
	writeTargets(&b, res, info.Torch)
	writeTorchProblems(&b, info.Torch)
	for _, g := range groups(res) {
		writeGroup(&b, g, res)
	}
	writeStages(&b, res)
	scal := scalings(res)
	writeScaling(&b, scal)
	for _, g := range groups(res) {
		name := "scaling-" + g + ".svg"
		ok, err := plotScaling(filepath.Join(dir, name), g, res)
		if err != nil {
			return "", err
		}
		if ok {
			fmt.Fprintf(&b, "![%s](%s)\n\n", g, name)
		}
	}
	writeCrossovers(&b, info.Crossovers)
	path := filepath.Join(dir, "report.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	js, err := json.MarshalIndent(jsonResults(info, res), "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(dir, "results.json"), js, 0o644)
}

func writeHeader(b *strings.Builder, info *RunInfo) {
	bi := info.Backend
	fmt.Fprintf(b, "# rhgd benchmarks, %s\n\n", info.Date.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(b, "`%s`, %s.\n\n", info.Command, info.Elapsed.Round(time.Second))
	fmt.Fprintf(b, "- Machine: %s, %d physical cores (%d logical), %s.\n", bi.CPU.Brand, bi.CPU.PhysicalCores, bi.CPU.LogicalCores, bi.Go)
	core := bi.Core
	if bi.DetectedCore != "" {
		core += " (re-selected from " + bi.DetectedCore + ")"
	}
	fmt.Fprintf(b, "- rhgd: backend %s %s, kernels %s, %d threads.\n", bi.Backend, bi.Library, core, bi.Threads)
	if t := bi.ThreadTable; t != nil {
		fmt.Fprintf(b, "- rhgd's one-thread windows: %s. The `%s` column is rhgd with the windows off (every call on all threads): below 1, the windows cost that much here.\n", t.Source, allThreadsPeer)
	}
	if p := info.Peer; p != nil {
		var vs []string
		for _, k := range []string{"python", "numpy", "scipy", "pot", "torch"} {
			if v, ok := p.Versions[k]; ok {
				vs = append(vs, k+" "+v)
			}
		}
		fmt.Fprintf(b, "- Peers: %s; torch on %d threads.\n", strings.Join(vs, ", "), p.TorchThreads)
		for _, l := range p.BLAS { // threadpoolctl's view: numpy's OpenBLAS, torch's OpenMP
			fmt.Fprintf(b, "  Thread pool in the peer process: %v", l["internal_api"])
			if v := l["version"]; v != nil {
				fmt.Fprintf(b, " %v", v)
			}
			if a := l["architecture"]; a != nil {
				fmt.Fprintf(b, ", kernels %v", a)
			}
			fmt.Fprintf(b, ", %v threads (%v).\n", l["num_threads"], l["filepath"])
		}
	} else {
		b.WriteString("- Peers: none (-no-peers).\n")
	}
	fmt.Fprintf(b, "- Every library is pinned to %d threads (the peers' OpenBLAS to rhgd's kernels too: OPENBLAS_CORETYPE).\n", info.Threads)
	b.WriteString("- Method: each case alternates rhgd and its peers in rounds (rhgd, peer 1, peer 2, …), so drift of the shared machine falls on both sides of a ratio. " +
		"Each side times itself on data in memory after one warm-up call, repeating the call until its minimum time has passed. " +
		"Times are medians over the rounds; a ratio is the median of the rounds' ratios peer/rhgd (above 1: rhgd is faster). " +
		"Both sides read the same inputs from .npy files. `agree` is the relative difference of the outputs' fingerprints (Σ out_k sin k): rounding when both compute the same thing.\n\n")
}

// groups lists the groups of res in their order, but for the stage
// profiles (writeStages).
func groups(res []Result) []string {
	var gs []string
	for _, r := range res {
		if r.Case.Group != stagesGroup && !slices.Contains(gs, r.Case.Group) {
			gs = append(gs, r.Case.Group)
		}
	}
	return gs
}

var groupTitles = map[string]string{
	"spd":      "SPD matrix functions and their floors (n×n)",
	"lyapunov": "Lyapunov equation A X + X A = C, A SPD",
	"expm":     "Exponential of a general matrix",
	"stiefel":  "Stiefel retractions (n×p)",
	"coupling": "Doubly stochastic manifold (n×n couplings)",
	"epoch":    "One RHGD epoch of the synthetic problem (n = 2d, r = d/2.5, S = 20)",
	"batch":    "Many small matrices at once (b matrices of order n)",
}

// groupNotes say what a group's tables need to be read right.
var groupNotes = map[string]string{
	"spd": "Peers: numpy's and torch's eigh-based functions (V f(Λ) Vᵀ, what Pymanopt and most user code write), " +
		"scipy's general-matrix expm, logm and sqrtm (Padé and Schur based), torch.linalg.matrix_exp; " +
		"the SPD exponential map as Pymanopt writes it (P expm(P⁻¹ξ), scipy) and as Geoopt does (P^½ exp(P^-½ ξ P^-½) P^½ by eigh, torch).",
	"stiefel": "Both retractions of X + U (‖U‖_F = 1): qf with R's diagonal positive (Pymanopt's QR retraction) and the polar factor " +
		"(the peers by the thin SVD). `householder` is LAPACK's dgeqrf + dorgqr alone, what numpy.linalg.qr calls; " +
		"`gram` (AᵀA by dsyrk) is the floor both retractions rest on.",
	"coupling": "POT's sinkhorn_log balances the same kernel K = Γ ∘ exp(U ⊘ Γ) to a stopping threshold as strict as rhgd's " +
		"relative L1 marginal error of 1e−13.",
	"epoch": "The peers run the authors' PyTorch formulation (bench/torch_synthetic.py) from the same data and start, in float64 and in " +
		"float32 (the authors' precision). HINV agrees to rounding in float64. AD does not compute the same thing: the paper's AD, which rhgd " +
		"runs, replaces each retraction's differential by the projection onto the next tangent space, while autograd differentiates the " +
		"unrolled second-order retraction exactly; their W after one epoch differ by about 1e−5. `hinv32` is HINV with the opt-in " +
		"mixed-precision lower loop (synthetic.Problem.SetLowerFloat32Steps(S−1): float32 products in every lower step but the last); " +
		"its f after 3 epochs from the same start is checked against float64's (the targets table gives the difference).",
	"batch": "rhgd runs spectral.Batch's Eig and Map (checked inputs, chunks of at most 2²¹ doubles per array, as the C ABI's " +
		"rhgd_spectral_*_batch), torch the expressions users write on the (b, n, n) tensor: torch.linalg.eigh, V diag(f(λ)) Vᵀ, and for " +
		"`+grad` autograd's backward through both (the forward included on both sides) for a symmetric upstream gradient. Inputs: SPD, " +
		"eigenvalues log-spaced in [0.1, 10]; ReEig's ε = 0.5. Both sides check their eigendecompositions once (ascending, residual, " +
		"orthogonality); `agree` compares eigenvalues, f(A) and the gradients. torch's batched eigh changes paths between n = 32 and 33. " +
		"To keep the report's time, the cases of 10⁹ n³ or more per call run 3 rounds, and at b = 10000 the forward maps alone are " +
		"not timed (they are inside `+grad`).",
}

// find returns the result of op at size (nil if none), outside the stage
// profiles.
func find(res []Result, op, size string) *Result {
	for i := range res {
		if res[i].Case.Op == op && res[i].Case.Size == size && res[i].Case.Group != stagesGroup {
			return &res[i]
		}
	}
	return nil
}

// floorRatio is r's time over its floor's at the same size (NaN if none).
func floorRatio(res []Result, r *Result) float64 {
	if r.Case.Floor == "" {
		return math.NaN()
	}
	f := find(res, r.Case.Floor, cmpOr(r.Case.FloorSize, r.Case.Size))
	if f == nil {
		return math.NaN()
	}
	return r.Median() / f.Median()
}

// writeGroup writes a table per op of the group: a row per size.
func writeGroup(b *strings.Builder, g string, res []Result) {
	fmt.Fprintf(b, "## %s\n\n", cmpOr(groupTitles[g], g))
	var ops []string
	for _, r := range res {
		if r.Case.Group == g && !slices.Contains(ops, r.Case.Op) {
			ops = append(ops, r.Case.Op)
		}
	}
	if n := groupNotes[g]; n != "" {
		b.WriteString(n + "\n\n")
	}
	for _, op := range ops {
		var rows []*Result
		var peers []string
		floor := ""
		for i := range res {
			r := &res[i]
			if r.Case.Group != g || r.Case.Op != op {
				continue
			}
			rows = append(rows, r)
			floor = r.Case.Floor
			for _, p := range r.Peers {
				if !slices.Contains(peers, p.Name) {
					peers = append(peers, p.Name)
				}
			}
		}
		fmt.Fprintf(b, "**%s** (%s)\n\n| size | rhgd |", op, rows[0].Case.FlopCount)
		if floor != "" {
			fmt.Fprintf(b, " ÷ %s |", floor)
		}
		for _, p := range peers {
			fmt.Fprintf(b, " %s |", p)
		}
		if len(peers) > 0 {
			b.WriteString(" agree |")
		}
		b.WriteString("\n|---|---:|")
		if floor != "" {
			b.WriteString("---:|")
		}
		b.WriteString(strings.Repeat("---:|", len(peers)))
		if len(peers) > 0 {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, r := range rows {
			if r.Err != "" {
				fmt.Fprintf(b, "| %s | error: %s |\n", r.Case.Size, oneLine(r.Err))
				continue
			}
			fmt.Fprintf(b, "| %s | %s |", r.Case.Size, fmtSeconds(r.Median()))
			if floor != "" {
				fmt.Fprintf(b, " %s |", fmtRatio(floorRatio(res, r)))
			}
			worst, worstName := math.NaN(), ""
			for _, name := range peers {
				i := slices.IndexFunc(r.Peers, func(p PeerResult) bool { return p.Name == name })
				switch {
				case i < 0:
					b.WriteString(" |")
				case r.Peers[i].Err != "":
					fmt.Fprintf(b, " error: %s |", oneLine(r.Peers[i].Err))
				default:
					p := r.Peers[i]
					fmt.Fprintf(b, " %s (%s) |", fmtRatio(p.Ratio()), fmtSeconds(median(p.Seconds)))
					if !math.IsNaN(p.Diff) && !(p.Diff <= worst) {
						worst, worstName = p.Diff, p.Name
					}
				}
			}
			if len(peers) > 0 {
				if math.IsNaN(worst) {
					b.WriteString(" — |")
				} else {
					fmt.Fprintf(b, " %.0e (%s) |", worst, worstName)
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

func fmtRatio(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmt.Sprintf("%.2f×", r)
}

func writeCrossovers(b *strings.Builder, cs []Crossover) {
	b.WriteString("## BLAS dispatch crossovers\n\n")
	if len(cs) == 0 {
		b.WriteString("Not measured in this run (a pure-Go build has no native library to cross over to).\n")
		return
	}
	b.WriteString("blas.Hybrid runs small calls in pure Go (gonum) and larger ones in the native library. " +
		"The sweep times both sides on square calls, alternating; the native side is the library as rhgd set it up (threaded).\n\n" +
		"| call | n | go | native | faster |\n|---|---:|---:|---:|---|\n")
	for _, c := range cs {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s |\n", c.Op, c.N, fmtSeconds(c.Go), fmtSeconds(c.Native), c.Winner())
	}
	cut := blas.CurrentInfo().Cutoffs
	fmt.Fprintf(b, "\nDerived from this run: native from n = %d on for dgemm (the constant level3Cutoff = %d on m·n·k sends n ≥ %d native), "+
		"from n = %d on for dgemv (level2Cutoff = %d on m·n sends n ≥ %d native).\n",
		derivedCrossover(cs, "dgemm"), cut["level3_mnk"], cubeRootCeil(cut["level3_mnk"]),
		derivedCrossover(cs, "dgemv"), cut["level2_mn"], sqrtCeil(cut["level2_mn"]))
}

func cubeRootCeil(v int) int {
	n := 0
	for n*n*n < v {
		n++
	}
	return n
}

func sqrtCeil(v int) int {
	n := 0
	for n*n < v {
		n++
	}
	return n
}

// jsonResult is one case in results.json.
type jsonResult struct {
	Name    string     `json:"name"`
	Seconds []float64  `json:"seconds"`
	Median  float64    `json:"median"`
	Floor   string     `json:"floor,omitempty"`
	Peers   []jsonPeer `json:"peers,omitempty"`
	Err     string     `json:"error,omitempty"`
	// Stages is a stage profile's mean seconds per call of each stage.
	Stages []jsonStage `json:"stages,omitempty"`
	// Agreement is an opt-in lower-precision case's relative f difference
	// from float64.
	Agreement *float64 `json:"f_agreement,omitempty"`
}

type jsonStage struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	PerCall float64 `json:"per_call"`
}

type jsonPeer struct {
	Name    string    `json:"name"`
	Seconds []float64 `json:"seconds"`
	Ratio   float64   `json:"ratio"`
	Diff    *float64  `json:"diff,omitempty"`
	Err     string    `json:"error,omitempty"`
}

func jsonResults(info *RunInfo, res []Result) map[string]any {
	var rs []jsonResult
	for _, r := range res {
		j := jsonResult{Name: r.Case.Name(), Seconds: r.Seconds, Floor: r.Case.Floor, Err: r.Err, Agreement: r.Agreement}
		for _, st := range r.Stages {
			j.Stages = append(j.Stages, jsonStage{Name: st.Name, Seconds: st.Seconds, PerCall: st.PerCall})
		}
		if m := r.Median(); !math.IsNaN(m) {
			j.Median = m
		}
		for _, p := range r.Peers {
			jp := jsonPeer{Name: p.Name, Seconds: p.Seconds, Err: p.Err}
			if v := p.Ratio(); !math.IsNaN(v) {
				jp.Ratio = v
			}
			if !math.IsNaN(p.Diff) {
				d := p.Diff
				jp.Diff = &d
			}
			j.Peers = append(j.Peers, jp)
		}
		rs = append(rs, j)
	}
	return map[string]any{"date": info.Date, "command": info.Command, "threads": info.Threads,
		"backend": info.Backend, "peer": info.Peer, "results": rs}
}
