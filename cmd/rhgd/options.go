package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/solver"
)

// runFlags are the settings rhgd run and rhgd compare share. A flag left
// out (its zero value, or an empty string) keeps the problem's paper
// setting; one given is never silently that: -epochs 0 is an error,
// -grad-tol 0 and -batch-lower 0 mean off and the whole sum (given,
// which fs.Visit tells apart from left out).
type runFlags struct {
	epochs, inner int
	etaX, etaY    float64
	gradTol       float64
	runtime       time.Duration
	stochastic    bool
	batches       solver.Batches
	retrX, retrY  string
	seed          uint64
	data, out     string
	quiet         bool
	preset        string
	hinvError     bool
	// checkpoint is rhgd run's -checkpoint directory ("": none) and
	// checkpointEvery its -checkpoint-every.
	checkpoint      string
	checkpointEvery int
	// headToHead, set by compare (not a flag), measures each run's true
	// hypergradient and when it reaches headToHeadTol (summary.json's
	// target) for the head-to-head table.
	headToHead bool
	// settings are the solver settings given by the flags made from the
	// solver's table (registerSettings), in order.
	settings []keyval.Pair
	// estOpts are the estimator options given by the flags made from the
	// estimators' table (registerEstimatorOptions), by estimator.
	estOpts map[string][]keyval.Pair

	// fs is the parsed command line, for what was given and the values of
	// the problem's own flags, named in problemNames (summary.json).
	fs           *flag.FlagSet
	problemNames []string
}

// problemFlags returns the values of the problem's flags for the summary.
func (o *runFlags) problemFlags() map[string]string {
	if o.fs == nil {
		return map[string]string{}
	}
	return flagValues(o.fs, o.problemNames)
}

// register declares the shared flags on fs; -data only when the problem
// takes a data file.
func (o *runFlags) register(fs *flag.FlagSet, spec *problems.Spec) {
	// The flags whose zero would stand for the problem's value refuse an
	// explicit 0 (zeroFlags); the help shows the problem's value.
	fs.IntVar(&o.epochs, "epochs", 0, "epochs K (> 0; default: the problem's)")
	fs.IntVar(&o.inner, "inner", 0, "lower-level steps S per epoch (> 0; default: the problem's)")
	fs.Float64Var(&o.etaX, "eta-x", 0, "upper step size η_x (> 0; default: the problem's)")
	fs.Float64Var(&o.etaY, "eta-y", 0, "lower step size η_y (> 0; default: the problem's)")
	fs.Float64Var(&o.gradTol, "grad-tol", 0, "stop once ‖hypergradient‖ ≤ this (0: off)")
	fs.DurationVar(&o.runtime, "runtime", 0, "stop after this much wall-clock time, e.g. 30s (0: off)")
	o.registerEstimatorOptions(fs)
	fs.BoolVar(&o.stochastic, "stochastic", false, "RSHGD with the problem's default minibatch sizes (finite-sum problems)")
	fs.IntVar(&o.batches.Lower, "batch-lower", 0, "RSHGD: lower-gradient batch B1 (0: whole sum; default: the whole sum, or -stochastic's)")
	fs.IntVar(&o.batches.Upper, "batch-upper", 0, "RSHGD: upper-gradient batch B2, as -batch-lower")
	fs.IntVar(&o.batches.Cross, "batch-cross", 0, "RSHGD: cross-derivative batch B3, as -batch-lower")
	fs.IntVar(&o.batches.Hess, "batch-hess", 0, "RSHGD: Hessian batch B4, as -batch-lower")
	fs.StringVar(&o.retrX, "retr-x", "", "upper retraction: qr|polar|cayley|exp (Stiefel), second-order|exp (SPD); default: the manifold's")
	fs.StringVar(&o.retrY, "retr-y", "", "lower retraction, as -retr-x")
	fs.Uint64Var(&o.seed, "seed", problems.DefaultSeed, "seed of generated data, random starts and minibatches")
	if spec.Data != "" {
		fs.StringVar(&o.data, "data", "", "data file instead of the built-in or generated data: "+spec.Data)
	}
	fs.StringVar(&o.out, "out", "", "output directory (default out/<problem>)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&o.preset, "preset", "paper", "paper: the paper's fixed lower steps and step sizes; adaptive: exact or adaptive lower solves and BB upper steps (solver.AdaptiveSettings)")
	o.registerSettings(fs)
	fs.BoolVar(&o.hinvError, "hinv-error", false, "measure each epoch's hypergradient error against HINV at the same point (problems with HINV; the time it takes is part of the seconds)")
}

// given reports whether the flag name was on the command line.
func (o *runFlags) given(name string) bool {
	found := false
	if o.fs != nil {
		o.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
}

// zeroGiven is the error of a flag given as 0 whose zero would stand for
// the problem's value (issue 27: an explicit 0 is never silently a
// default): the flag is left out for that.
func zeroGiven(name, problems string) error {
	return usagef("-%s 0 would mean the problem's value, not 0; leave -%s out for the problem's (%s)", name, name, problems)
}

// build makes the instance and applies the shared settings to it.
func (o *runFlags) build(make func(problems.Options) (*problems.Instance, error)) (*problems.Instance, error) {
	in, err := make(problems.Options{Data: o.data, Seed: o.seed})
	if err != nil {
		return nil, err
	}
	s := &in.Settings
	def, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	for _, set := range []struct {
		name string
		v    float64
		dst  *float64
		def  float64 // what 0 would stand for; 0: the flag's 0 is off
	}{{"eta-x", o.etaX, &s.EtaX, def.EtaX}, {"eta-y", o.etaY, &s.EtaY, def.EtaY}, {"grad-tol", o.gradTol, &s.GradTol, 0}} {
		switch {
		case set.v < 0:
			return nil, usagef("-%s must not be negative, have %g", set.name, set.v)
		case set.v == 0 && set.def != 0 && o.given(set.name):
			return nil, zeroGiven(set.name, strconv.FormatFloat(set.def, 'g', -1, 64))
		case set.v > 0 || o.given(set.name):
			*set.dst = set.v
		}
	}
	for _, set := range []struct {
		name string
		v    int
		dst  *int
		def  int
	}{{"epochs", o.epochs, &s.Epochs, def.Epochs}, {"inner", o.inner, &s.InnerIters, def.InnerIters}} {
		switch {
		case set.v < 0:
			return nil, usagef("-%s must not be negative, have %d", set.name, set.v)
		case set.v == 0 && o.given(set.name):
			return nil, zeroGiven(set.name, strconv.Itoa(set.def))
		case set.v > 0:
			*set.dst = set.v
		}
	}
	if o.runtime < 0 {
		return nil, usagef("-runtime must not be negative, have %v", o.runtime)
	}
	s.Runtime = o.runtime
	s.Seed = o.seed
	switch o.preset {
	case "paper":
	case "adaptive":
		s.ApplyAdaptive()
	default:
		return nil, usagef("-preset is paper or adaptive, not %q", o.preset)
	}
	switch {
	case o.stochastic && in.Stochastic == nil:
		return nil, usagef("-stochastic: this problem is not a finite sum")
	case o.stochastic:
		s.Batches = *in.Stochastic
	}
	for _, b := range []struct {
		name string
		v    int
		dst  *int
	}{{"batch-lower", o.batches.Lower, &s.Batches.Lower}, {"batch-upper", o.batches.Upper, &s.Batches.Upper},
		{"batch-cross", o.batches.Cross, &s.Batches.Cross}, {"batch-hess", o.batches.Hess, &s.Batches.Hess}} {
		if b.v < 0 {
			return nil, usagef("-%s must not be negative, have %d", b.name, b.v)
		}
		if b.v > 0 || o.given(b.name) { // -batch-lower 0: the whole sum, over -stochastic's
			*b.dst = b.v
		}
	}
	if err := o.applySettings(s); err != nil {
		return nil, err
	}
	if err := setRetraction(in.Problem.Mx, o.retrX); err != nil {
		return nil, usagef("-retr-x: %v", err)
	}
	if err := setRetraction(in.Problem.My, o.retrY); err != nil {
		return nil, usagef("-retr-y: %v", err)
	}
	return in, nil
}

// splitEstimators splits a comma-separated list of estimator specs, in
// which a spec's own settings are comma-separated too: "cg:tol=1e-6,
// maxiter=20,ns" is cg:tol=1e-6,maxiter=20 and ns. A piece with "=" and
// no ":" continues the spec before it.
func splitEstimators(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if n := len(out); n > 0 && strings.Contains(f, "=") && !strings.Contains(f, ":") {
			out[n-1] += "," + f
			continue
		}
		out = append(out, f)
	}
	return out
}

// setRetraction sets m's retraction by name ("" keeps it), on a manifold
// that offers a choice (solver.RetractionChooser).
func setRetraction(m solver.Manifold, name string) error {
	if name == "" {
		return nil
	}
	if c, ok := solver.AsRetractionChooser(m); ok {
		if c.SetRetraction(name) != nil {
			return fmt.Errorf("%s retractions are %s, not %q", typeName(m), andList(c.Retractions()), name)
		}
		return nil
	}
	if s, ok := m.(fmt.Stringer); ok { // a problem's own manifold names itself
		return fmt.Errorf("the manifold %s has one retraction; %q cannot be chosen", s, name)
	}
	return fmt.Errorf("the manifold %T has one retraction; %q cannot be chosen", m, name)
}

// retractionName is the -retr-x/-retr-y name of m's retraction, or "" when
// m has no choice of retraction.
func retractionName(m solver.Manifold) string {
	if c, ok := solver.AsRetractionChooser(m); ok {
		return c.RetractionName()
	}
	return ""
}

// typeName is the name of m's type without its package or pointer:
// Stiefel, SPD.
func typeName(m solver.Manifold) string {
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// andList joins names as prose: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// problemFlags parses rhgd run/compare's command line: the problem name,
// then the shared flags, the command's own (extra) and the problem's. It
// returns a nil builder after printing help for -h.
func problemFlags(w io.Writer, cmd string, args []string, o *runFlags, extra func(*flag.FlagSet)) (*problems.Spec, func(problems.Options) (*problems.Instance, error), error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && isHelp(args[0]) {
			fmt.Fprintf(w, "usage: rhgd %s <problem> [flags]\n\nproblems:\n", cmd)
			for _, n := range catalog.Names() {
				s, _ := catalog.Lookup(n)
				fmt.Fprintf(w, "  %-12s %s\n", n, s.Summary)
			}
			fmt.Fprintf(w, "\nrhgd %s <problem> -h lists the problem's flags and their defaults.\n", cmd)
			return nil, nil, nil
		}
		return nil, nil, usagef("%s: name a problem first, one of %v", cmd, catalog.Names())
	}
	spec, err := catalog.Lookup(args[0])
	if err != nil {
		return nil, nil, usagef("%s: %v", cmd, err)
	}
	var mk func(problems.Options) (*problems.Instance, error)
	if extra == nil {
		extra = func(*flag.FlagSet) {}
	}
	register := func(fs *flag.FlagSet) { o.register(fs, spec) }
	fs, err := parseHelp(w, cmd+" "+spec.Name, args[1:], func(fs *flag.FlagSet) { o.showDefaults(fs, mk) },
		register, extra, func(fs *flag.FlagSet) { mk = spec.Flags(fs) })
	if err != nil || fs == nil {
		if err == nil {
			fmt.Fprintf(w, "\n%s: %s\n", spec.Name, spec.Summary)
			if spec.Data == "" {
				fmt.Fprintf(w, "It takes no data file.\n")
			}
		}
		return nil, nil, err
	}
	o.fs = fs
	own := flag.NewFlagSet(spec.Name, flag.ContinueOnError)
	spec.Flags(own)
	own.VisitAll(func(f *flag.Flag) { o.problemNames = append(o.problemNames, f.Name) })
	return spec, mk, nil
}

// showDefaults sets the help's defaults of the shared flags whose zero
// value means "the problem's" to the values the problem has, from an
// instance built with the flags given so far. When that fails, the help
// keeps saying "the problem's".
func (o *runFlags) showDefaults(fs *flag.FlagSet, mk func(problems.Options) (*problems.Instance, error)) {
	in, err := o.build(mk)
	if err != nil {
		return
	}
	s, err := in.Settings.WithDefaults()
	if err != nil {
		return
	}
	def := func(name, v string) {
		if f := fs.Lookup(name); f != nil && v != "" {
			f.DefValue = v
		}
	}
	showSettingDefaults(fs, s)
	def("epochs", strconv.Itoa(s.Epochs))
	def("inner", strconv.Itoa(s.InnerIters))
	def("eta-x", strconv.FormatFloat(s.EtaX, 'g', -1, 64))
	def("eta-y", strconv.FormatFloat(s.EtaY, 'g', -1, 64))
	def("retr-x", retractionName(in.Problem.Mx))
	def("retr-y", retractionName(in.Problem.My))
	showEstimatorDefaults(fs, in)
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }
