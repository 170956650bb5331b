package main

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"strings"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// summary is summary.json: what was run, with the settings in effect, and
// how it ended. Every key is snake_case.
type summary struct {
	Problem   string   `json:"problem"`
	Describe  string   `json:"describe"`
	Notes     []string `json:"notes,omitempty"`
	Estimator string   `json:"estimator"`
	Settings  settings `json:"settings"`
	// ProblemFlags are the values of the problem's own flags, given or
	// default, by name with "-" written "_".
	ProblemFlags map[string]string `json:"problem_flags"`
	Status       string            `json:"status"`
	Error        string            `json:"error,omitempty"`
	Epochs       int               `json:"epochs"`
	// Seconds is the run's wall clock, MeasureSeconds the part of it
	// spent measuring each epoch (accuracy, the error against HINV).
	Seconds        float64  `json:"seconds"`
	MeasureSeconds float64  `json:"measure_seconds"`
	Objective      *float64 `json:"final_objective"`
	BestObjective  *float64 `json:"best_objective"`
	HyperGradNorm  *float64 `json:"final_hypergradient_norm"`
	HyperGradErr   *float64 `json:"final_hypergradient_error_vs_hinv,omitempty"`
	Accuracy       *float64 `json:"accuracy,omitempty"`
	Baseline       string   `json:"baseline,omitempty"`
	BaselineAcc    *float64 `json:"baseline_accuracy,omitempty"`
	Backend        string   `json:"backend"`
	// RetractionsRetried counts the retractions that failed and were
	// retried with half the step (solver.Stats.RetractFailures).
	RetractionsRetried int `json:"retractions_retried,omitempty"`
	// Oracles are the run's oracle calls by kind, for comparing
	// estimators that trade one kind for another.
	Oracles oracles `json:"oracles"`
	// Target is when the run first reached ‖grad F‖ ≤ rel_tol·‖grad F₀‖
	// (rhgd compare only).
	Target *target `json:"target,omitempty"`
}

// oracles are solver.Stats's oracle counts.
type oracles struct {
	UpperGrads  int `json:"upper_grads"`
	LowerGrads  int `json:"lower_grads"`
	HessVecs    int `json:"hess_vecs"`
	CrossVecs   int `json:"cross_vecs"`
	LowerValues int `json:"lower_values"`
	LowerSolves int `json:"lower_solves"`
	LowerXGrads int `json:"lower_x_grads"`
	UpperYGrads int `json:"upper_y_grads"`
}

func newOracles(s *solver.Stats) oracles {
	return oracles{UpperGrads: s.UpperGrads, LowerGrads: s.LowerGrads, HessVecs: s.HessVecs, CrossVecs: s.CrossVecs,
		LowerValues: s.LowerValues, LowerSolves: s.LowerSolves, LowerXGrads: s.LowerXGrads, UpperYGrads: s.UpperYGrads}
}

// headToHeadTol is the relative hypergradient norm the head-to-head table
// times the runs to (issue 21 §4).
const headToHeadTol = 1e-3

// target is when a run first reached ‖g_k‖ ≤ rel_tol·‖g_0‖, g the true
// hypergradient (against "true_hypergradient") or, on problems without
// one, the estimator's own ĝ (against "estimate"). Epoch and
// SolverSeconds are absent when the run never got there; SolverSeconds
// leaves out the time spent measuring (history.csv's solver_seconds).
type target struct {
	Against       string   `json:"against"`
	RelTol        float64  `json:"rel_tol"`
	Epoch         *int     `json:"epoch,omitempty"`
	SolverSeconds *float64 `json:"solver_seconds,omitempty"`
	// FinalRatio is the last epoch's ‖g‖/‖g₀‖.
	FinalRatio *float64 `json:"final_ratio,omitempty"`
}

// reach returns when the history first reached rel times its first norm:
// of the true hypergradient when it has it, else of the estimate.
func (h *history) reach(rel float64) *target {
	t := &target{Against: "estimate", RelTol: rel}
	norm := func(r *epochRow) float64 { return r.HyperGradNorm }
	if h.hasTruth() {
		t.Against = "true_hypergradient"
		norm = func(r *epochRow) float64 { return r.TrueGradNorm }
	}
	if len(h.rows) == 0 {
		return t
	}
	goal := rel * norm(&h.rows[0])
	t.FinalRatio = finite(norm(&h.rows[len(h.rows)-1]) / norm(&h.rows[0]))
	for i := range h.rows {
		r := &h.rows[i]
		if norm(r) <= goal {
			e, sec := r.Epoch, r.SolverSeconds
			t.Epoch, t.SolverSeconds = &e, &sec
			break
		}
	}
	return t
}

// settings are the solver settings a run used, defaults filled in.
type settings struct {
	Preset         string     `json:"preset"`
	EtaX           float64    `json:"eta_x"`
	EtaY           float64    `json:"eta_y"`
	InnerIters     int        `json:"inner_iters"`
	Epochs         int        `json:"epochs"`
	GradTol        float64    `json:"grad_tol"`
	RelGradTol     float64    `json:"rel_grad_tol"`
	RuntimeSeconds float64    `json:"runtime_seconds"`
	DivergeFactor  float64    `json:"diverge_factor"`
	FDStep         float64    `json:"fd_step"`
	Seed           uint64     `json:"seed"`
	Batches        *batches   `json:"batches,omitempty"`
	Lower          *lowerRule `json:"lower,omitempty"`
	Upper          *upperRule `json:"upper,omitempty"`
	RetractionX    string     `json:"retraction_x,omitempty"`
	RetractionY    string     `json:"retraction_y,omitempty"`
	Data           string     `json:"data,omitempty"`
	HINVError      bool       `json:"hinv_error"`
}

// batches are RSHGD's minibatch sizes (solver.Batches), present only when
// the run samples.
type batches struct {
	Lower int `json:"lower"`
	Upper int `json:"upper"`
	Cross int `json:"cross"`
	Hess  int `json:"hess"`
}

// lowerRule and upperRule are the adaptive rules (solver.LowerRule,
// UpperRule), present only when the run uses them.
type lowerRule struct {
	UseLowerSolve bool    `json:"use_lower_solve"`
	Tol           float64 `json:"tol"`
	MaxIters      int     `json:"max_iters"`
	BB            bool    `json:"bb"`
}

type upperRule struct {
	BB      bool    `json:"bb"`
	MinStep float64 `json:"min_step"`
	MaxStep float64 `json:"max_step"`
}

// newSettings returns the record of s (with its defaults filled in, as
// solver.New checked them) for a run with the flags o.
func newSettings(s solver.Settings, in *problems.Instance, o *runFlags) settings {
	out := settings{Preset: o.preset, EtaX: s.EtaX, EtaY: s.EtaY, InnerIters: s.InnerIters, Epochs: s.Epochs,
		GradTol: s.GradTol, RelGradTol: s.RelGradTol, RuntimeSeconds: s.Runtime.Seconds(), DivergeFactor: s.DivergeFactor, FDStep: s.FDStep,
		Seed: s.Seed, RetractionX: retractionName(in.Problem.Mx), RetractionY: retractionName(in.Problem.My),
		Data: o.data, HINVError: o.hinvError}
	if b := s.Batches; b != (solver.Batches{}) {
		out.Batches = &batches{Lower: b.Lower, Upper: b.Upper, Cross: b.Cross, Hess: b.Hess}
	}
	if l := s.Lower; l.UseLowerSolve || l.Tol > 0 || l.BB {
		out.Lower = &lowerRule{UseLowerSolve: l.UseLowerSolve && in.Problem.LowerSolve != nil, Tol: l.Tol, MaxIters: l.MaxIters, BB: l.BB}
	}
	if u := s.Upper; u.BB {
		out.Upper = &upperRule{BB: true, MinStep: u.MinStep, MaxStep: u.MaxStep}
	}
	return out
}

// flagValues returns the values of the named flags of fs, given or
// default, keyed in snake_case.
func flagValues(fs *flag.FlagSet, names []string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			m[strings.ReplaceAll(n, "-", "_")] = f.Value.String()
		}
	}
	return m
}

// finite returns &v, or nil for NaN and ±Inf (JSON has no such numbers).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func saveJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
