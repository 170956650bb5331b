package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/rhgd/rhgd/internal/keyval"
	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/solver"
)

// runFlags are the settings rhgd run and rhgd compare share. The solver
// settings' flags and the estimator options' flags are made from the
// solver's tables (registerSettings, registerEstimatorOptions); a flag
// left out keeps the problem's paper setting, and one given is never
// silently that: -epochs 0 is an error, -grad-tol 0 and -batch-lower 0
// mean off and the whole sum.
type runFlags struct {
	stochastic   bool
	retrX, retrY string
	seed         uint64
	data, out    string
	quiet        bool
	preset       string
	hinvError    bool
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
	o.registerEstimatorOptions(fs)
	fs.BoolVar(&o.stochastic, "stochastic", false, "RSHGD with the problem's default minibatch sizes (finite-sum problems)")
	fs.StringVar(&o.retrX, "retr-x", "", "upper retraction: "+mspec.RetractionUsage()+"; default: the manifold's")
	fs.StringVar(&o.retrY, "retr-y", "", "lower retraction, as -retr-x")
	fs.Uint64Var(&o.seed, "seed", problems.DefaultSeed, "seed of generated data, random starts and minibatches")
	if spec.Data != "" {
		fs.StringVar(&o.data, "data", "", "data file instead of the built-in or generated data: "+spec.Data)
	}
	fs.StringVar(&o.out, "out", "", "output directory (default out/<problem>)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&o.preset, "preset", "paper", presetUsage())
	o.registerSettings(fs)
	fs.BoolVar(&o.hinvError, "hinv-error", false, "measure each epoch's hypergradient error against HINV at the same point (problems with HINV; the time it takes is part of the seconds)")
}

// presetUsage is -preset's help, from the solver's table of presets.
func presetUsage() string {
	var parts []string
	for _, p := range solver.Presets() {
		parts = append(parts, p.Name+": "+p.Doc)
	}
	return strings.Join(parts, "; ")
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
	s.Seed = o.seed
	if s.ApplyPreset(o.preset) != nil {
		return nil, usagef("-preset is %s, not %q", solver.PresetNames(), o.preset)
	}
	switch {
	case o.stochastic && in.Stochastic == nil:
		return nil, usagef("-stochastic: this problem is not a finite sum")
	case o.stochastic:
		s.Batches = *in.Stochastic
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
		register, extra, func(fs *flag.FlagSet) { mk = specFlags(spec, fs) })
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
	specFlags(spec, own)
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
	def("retr-x", retractionName(in.Problem.Mx))
	def("retr-y", retractionName(in.Problem.My))
	showEstimatorDefaults(fs, in)
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }
