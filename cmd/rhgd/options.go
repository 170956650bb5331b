package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// runFlags are the settings rhgd run and rhgd compare share. Zero values
// (and empty strings) keep the problem's paper settings.
type runFlags struct {
	epochs, inner      int
	etaX, etaY         float64
	gradTol            float64
	runtime            time.Duration
	cgTol              float64
	cgMaxIter, nsTerms int
	nsGamma            float64
	stochastic         bool
	batches            solver.Batches
	retrX, retrY       string
	seed               uint64
	data, out          string
	quiet              bool
	preset             string
}

// register declares the shared flags on fs.
func (o *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&o.epochs, "epochs", 0, "epochs K (0: the problem's paper setting)")
	fs.IntVar(&o.inner, "inner", 0, "lower-level steps S per epoch (0: paper setting)")
	fs.Float64Var(&o.etaX, "eta-x", 0, "upper step size η_x (0: paper setting)")
	fs.Float64Var(&o.etaY, "eta-y", 0, "lower step size η_y (0: paper setting)")
	fs.Float64Var(&o.gradTol, "grad-tol", 0, "stop once ‖hypergradient‖ ≤ this (0: off)")
	fs.DurationVar(&o.runtime, "runtime", 0, "stop after this long, e.g. 30s (0: off)")
	fs.Float64Var(&o.cgTol, "cg-tol", 0, "CG relative residual tolerance (0: paper setting)")
	fs.IntVar(&o.cgMaxIter, "cg-maxiter", 0, "CG iteration cap (0: paper setting)")
	fs.Float64Var(&o.nsGamma, "ns-gamma", 0, "Neumann series step γ (0: paper setting)")
	fs.IntVar(&o.nsTerms, "ns-terms", 0, "Neumann series terms T (0: paper setting)")
	fs.BoolVar(&o.stochastic, "stochastic", false, "RSHGD with the problem's default minibatch sizes (finite-sum problems)")
	fs.IntVar(&o.batches.Lower, "batch-lower", 0, "RSHGD: lower-gradient batch B1 (0: whole sum, or the -stochastic default)")
	fs.IntVar(&o.batches.Upper, "batch-upper", 0, "RSHGD: upper-gradient batch B2")
	fs.IntVar(&o.batches.Cross, "batch-cross", 0, "RSHGD: cross-derivative batch B3")
	fs.IntVar(&o.batches.Hess, "batch-hess", 0, "RSHGD: Hessian batch B4")
	fs.StringVar(&o.retrX, "retr-x", "", "upper retraction: qr|polar|cayley|exp (Stiefel), second-order|exp (SPD); default: the manifold's")
	fs.StringVar(&o.retrY, "retr-y", "", "lower retraction, as -retr-x")
	fs.Uint64Var(&o.seed, "seed", 42, "seed of generated data, random starts and minibatches")
	fs.StringVar(&o.data, "data", "", "data file to load instead of the built-in or generated data (see the problem's docs)")
	fs.StringVar(&o.out, "out", "", "output directory (default out/<problem>)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&o.preset, "preset", "paper", "paper: the paper's fixed lower steps and step sizes; adaptive: exact or adaptive lower solves and BB upper steps (solver.AdaptiveSettings)")
}

// build makes the instance and applies the shared settings to it.
func (o *runFlags) build(make func(problems.Options) (*problems.Instance, error)) (*problems.Instance, error) {
	in, err := make(problems.Options{Data: o.data, Seed: o.seed})
	if err != nil {
		return nil, err
	}
	s := &in.Settings
	for _, set := range []struct {
		name string
		v    float64
		dst  *float64
	}{{"eta-x", o.etaX, &s.EtaX}, {"eta-y", o.etaY, &s.EtaY}, {"grad-tol", o.gradTol, &s.GradTol}} {
		if set.v < 0 {
			return nil, usagef("-%s must not be negative, have %g", set.name, set.v)
		}
		if set.v > 0 {
			*set.dst = set.v
		}
	}
	for _, set := range []struct {
		name string
		v    int
		dst  *int
	}{{"epochs", o.epochs, &s.Epochs}, {"inner", o.inner, &s.InnerIters}} {
		if set.v < 0 {
			return nil, usagef("-%s must not be negative, have %d", set.name, set.v)
		}
		if set.v > 0 {
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
		if b.v > 0 {
			*b.dst = b.v
		}
	}
	if err := setRetraction(in.Problem.Mx, o.retrX); err != nil {
		return nil, usagef("-retr-x: %v", err)
	}
	if err := setRetraction(in.Problem.My, o.retrY); err != nil {
		return nil, usagef("-retr-y: %v", err)
	}
	return in, nil
}

// estimator returns the estimator spec names for the instance, with the
// -cg-* and -ns-* flags merged into its settings.
func (o *runFlags) estimator(in *problems.Instance, spec string) (solver.Estimator, error) {
	if s, ok := in.Estimators[spec]; ok {
		spec = s
	}
	name, _, _ := strings.Cut(spec, ":")
	over := map[string]string{}
	switch strings.ToLower(name) {
	case "cg":
		if o.cgTol > 0 {
			over["tol"] = strconv.FormatFloat(o.cgTol, 'g', -1, 64)
		}
		if o.cgMaxIter > 0 {
			over["maxiter"] = strconv.Itoa(o.cgMaxIter)
		}
	case "ns", "neumann":
		if o.nsGamma > 0 {
			over["gamma"] = strconv.FormatFloat(o.nsGamma, 'g', -1, 64)
		}
		if o.nsTerms > 0 {
			over["terms"] = strconv.Itoa(o.nsTerms)
		}
	}
	if o.cgTol < 0 || o.cgMaxIter < 0 || o.nsGamma < 0 || o.nsTerms < 0 {
		return nil, usagef("-cg-tol, -cg-maxiter, -ns-gamma and -ns-terms must not be negative")
	}
	est, err := solver.ParseEstimator(mergeSpec(spec, over))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return est, nil
}

// mergeSpec returns the estimator spec with the settings in over replacing
// or adding to its own, keys sorted.
func mergeSpec(spec string, over map[string]string) string {
	name, params, _ := strings.Cut(spec, ":")
	kv := map[string]string{}
	if params != "" {
		for _, f := range strings.Split(params, ",") {
			k, v, _ := strings.Cut(f, "=")
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for k, v := range over {
		kv[k] = v
	}
	if len(kv) == 0 {
		return name
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		parts = append(parts, k+"="+kv[k])
	}
	return name + ":" + strings.Join(parts, ",")
}

// setRetraction sets m's retraction by name ("" keeps it).
func setRetraction(m solver.Manifold, name string) error {
	if name == "" {
		return nil
	}
	switch m := m.(type) {
	case *stiefel.Stiefel:
		r, ok := map[string]stiefel.Retraction{"qr": stiefel.QR, "polar": stiefel.Polar, "cayley": stiefel.Cayley, "exp": stiefel.Exponential}[name]
		if !ok {
			return fmt.Errorf("Stiefel retractions are qr, polar, cayley and exp, not %q", name)
		}
		m.Retraction = r
	case *spd.SPD:
		r, ok := map[string]spd.Retraction{"second-order": spd.SecondOrder, "exp": spd.Exponential}[name]
		if !ok {
			return fmt.Errorf("SPD retractions are second-order and exp, not %q", name)
		}
		m.Retraction = r
	default:
		return fmt.Errorf("the manifold %T has one retraction; %q cannot be chosen", m, name)
	}
	return nil
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
			fmt.Fprintf(w, "\nrhgd %s <problem> -h lists the problem's flags.\n", cmd)
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
	fs, err := parse(w, cmd+" "+spec.Name, args[1:], o.register, extra, func(fs *flag.FlagSet) { mk = spec.Flags(fs) })
	if err != nil || fs == nil {
		if err == nil {
			fmt.Fprintf(w, "\n%s: %s\n", spec.Name, spec.Summary)
		}
		return nil, nil, err
	}
	return spec, mk, nil
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }
