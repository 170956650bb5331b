package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// writeHeadToHead writes rhgd compare's head-to-head table (issue 21 §4)
// as Markdown: per run, its status and epochs, the solver's seconds (the
// run's wall clock less the time spent measuring it), the final f, the
// epoch k and solver seconds at which ‖g_k‖ first fell to headToHeadTol
// of ‖g_0‖ — g the true hypergradient at the exact lower solution where
// the problem has one (column "vs" = true), else the estimator's own ĝ
// (vs = ĝ) — with the last epoch's ‖g‖/‖g₀‖, and the oracle counts by
// kind.
func writeHeadToHead(w io.Writer, outs []*outcome) {
	fmt.Fprintf(w, "| estimator | status | epochs | solver s | final f | vs | final ‖g‖/‖g₀‖ | epoch to %g | s to %g | upper_grads | lower_grads | hess_vecs | cross_vecs | lower_values | lower_solves | lower_x_grads | upper_y_grads |\n",
		headToHeadTol, headToHeadTol)
	fmt.Fprintln(w, "|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, o := range outs {
		s := o.sum
		vs, ratio, ep, sec := "–", "–", "–", "–"
		if t := s.Target; t != nil {
			vs = "ĝ"
			if t.Against == "true_hypergradient" {
				vs = "true"
			}
			ratio = fmtPtr(t.FinalRatio, "%.2e")
			if t.Epoch != nil {
				ep, sec = strconv.Itoa(*t.Epoch), fmt.Sprintf("%.3g", *t.SolverSeconds)
			}
		}
		c := s.Oracles
		fmt.Fprintf(w, "| `%s` | %s | %d | %.3g | %s | %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %d |\n",
			o.est, s.Status, s.Epochs, s.Seconds-s.MeasureSeconds, fmtPtr(s.Objective, "%.8g"), vs, ratio, ep, sec,
			c.UpperGrads, c.LowerGrads, c.HessVecs, c.CrossVecs, c.LowerValues, c.LowerSolves, c.LowerXGrads, c.UpperYGrads)
	}
}

// saveHeadToHead writes the head-to-head table to path.
func saveHeadToHead(path string, outs []*outcome) error {
	var b strings.Builder
	writeHeadToHead(&b, outs)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
