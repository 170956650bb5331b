package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// estimatorUsage is the help of -estimator and -estimators: what, then
// the spec's syntax and rule and the solver's table of estimators and
// their options (solver.EstimatorHelp).
func estimatorUsage(what string) string {
	return what + `; a spec is a name, optionally with options ("cg:tol=1e-6,maxiter=20"): ` +
		"the name alone is the problem's paper spec, and a spec with options stands for itself, " +
		"its options left out taking the estimator's defaults; the -<estimator>-<option> flags " +
		"add options to the spec of their estimator:\n" + strings.TrimRight(solver.EstimatorHelp(), "\n")
}

// estFlagName is the flag of an estimator's option: cg's tol is -cg-tol.
func estFlagName(est, key string) string { return est + "-" + key }

// estOptFlag is a flag made from the estimators' table: its value is an
// option of the run's spec for its estimator, as if written in the spec
// (-estimator cg -cg-tol 1e-6 is -estimator cg:tol=1e-6). Set checks the
// value's syntax; a 0 that would stand for a default is refused by
// runFlags.estimator, which knows what leaving the flag out gives.
type estOptFlag struct {
	est string
	opt solver.EstimatorOption
	o   *runFlags
	v   string
}

func (f *estOptFlag) String() string {
	if f == nil {
		return ""
	}
	return f.v
}

func (f *estOptFlag) Set(v string) error {
	if _, err := solver.ParseEstimator(f.est + ":" + f.opt.Key + "=" + v); err != nil && !isZero(v) {
		return fmt.Errorf("want %s", map[string]string{"int": "an integer", "float": "a number",
			"bool": "true or false", "damping": "a number or auto"}[f.opt.Type])
	}
	f.v = v
	if f.o.estOpts == nil {
		f.o.estOpts = map[string][]keyval.Pair{}
	}
	f.o.estOpts[f.est] = setPair(f.o.estOpts[f.est], f.opt.Key, v)
	return nil
}

// Get returns a float option's number, for finiteFloats.
func (f *estOptFlag) Get() any {
	if f.opt.Type == "float" {
		x, _ := strconv.ParseFloat(f.v, 64)
		return x
	}
	return f.v
}

// IsBoolFlag lets -cg-warm stand for -cg-warm=true.
func (f *estOptFlag) IsBoolFlag() bool { return f.opt.Type == "bool" }

// isZero reports whether v is a number equal to 0.
func isZero(v string) bool {
	x, err := strconv.ParseFloat(v, 64)
	return err == nil && x == 0
}

// registerEstimatorOptions declares a flag for each option of each
// estimator of the solver's table.
func (o *runFlags) registerEstimatorOptions(fs *flag.FlagSet) {
	for _, e := range solver.EstimatorTable() {
		for _, opt := range e.Options {
			usage := fmt.Sprintf("the %s estimator's %s: %s (left out: the problem's paper value, or %s beside another %s option)",
				e.Name, opt.Key, opt.Doc, opt.Default, e.Name)
			fs.Var(&estOptFlag{est: e.Name, opt: opt, o: o}, estFlagName(e.Name, opt.Key), usage)
		}
	}
}

// estimator returns the estimator spec names for the instance, with the
// options of its estimator's flags added to it (replacing its own for the
// same key), by the rule of every front end (problems.Instance.Estimator):
// a name alone is the problem's paper spec, a spec with options stands
// for itself.
func (o *runFlags) estimator(in *problems.Instance, spec string) (solver.Estimator, error) {
	name, _, _ := strings.Cut(spec, ":")
	info, ok := solver.LookupEstimator(name)
	if !ok { // ParseEstimator says so
		_, err := in.Estimator(spec)
		return nil, usagef("%v", err)
	}
	given := o.estOpts[info.Name]
	// A flag given as 0 whose zero would stand for a default: refuse it,
	// naming the value leaving it out gives.
	for i, p := range given {
		opt := optionOf(info, p.Key)
		if !opt.ZeroIsDefault || !isZero(p.Value) {
			continue
		}
		without := slices.Delete(slices.Clone(given), i, i+1)
		e, err := in.Estimator(mergeSpec(spec, without))
		if err != nil {
			break // the spec's own error, below
		}
		v := specValue(fmt.Sprint(e), p.Key)
		if v == "" {
			v = opt.Default
		}
		return nil, zeroGiven(estFlagName(info.Name, p.Key), v)
	}
	est, err := in.Estimator(mergeSpec(spec, given))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return est, nil
}

// optionOf returns the option key of the estimator e.
func optionOf(e solver.EstimatorInfo, key string) solver.EstimatorOption {
	for _, o := range e.Options {
		if o.Key == key {
			return o
		}
	}
	panic("rhgd: " + e.Name + " has no option " + key) // the flags are the table's
}

// checkUsed rejects an estimator option's flag that no estimator of the
// run reads: it would be ignored without a word.
func (o *runFlags) checkUsed(ests []solver.Estimator) error {
	var names []string
	for _, e := range ests {
		names = append(names, e.Name())
	}
	for _, e := range solver.EstimatorTable() {
		for _, p := range o.estOpts[e.Name] {
			if !slices.Contains(names, e.Name) {
				return usagef("-%s is a setting of the %s estimator, and this run has %s", estFlagName(e.Name, p.Key), e.Name, strings.Join(names, ", "))
			}
		}
	}
	return nil
}

// showEstimatorDefaults sets the help's defaults of the estimator
// options' flags to the values of the problem's paper specs.
func showEstimatorDefaults(fs *flag.FlagSet, in *problems.Instance) {
	for _, e := range solver.EstimatorTable() {
		spec, ok := in.Estimators[e.Name]
		if !ok {
			continue
		}
		est, err := solver.ParseEstimator(spec)
		if err != nil {
			continue
		}
		for _, opt := range e.Options {
			if v := specValue(fmt.Sprint(est), opt.Key); v != "" {
				fs.Lookup(estFlagName(e.Name, opt.Key)).DefValue = v
			}
		}
	}
}

// mergeSpec returns the estimator spec with the options over replacing
// or adding to its own, keys sorted; the spec itself when over is empty.
func mergeSpec(spec string, over []keyval.Pair) string {
	if len(over) == 0 {
		return spec
	}
	name, params, _ := strings.Cut(spec, ":")
	pairs, err := keyval.Split(params)
	if err != nil {
		return spec // ParseEstimator says what is wrong
	}
	kv := map[string]string{}
	for _, p := range append(pairs, over...) {
		kv[p.Key] = p.Value
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		parts = append(parts, k+"="+kv[k])
	}
	return name + ":" + strings.Join(parts, ",")
}

// specValue returns the value of key in an estimator spec
// ("cg:maxiter=50,tol=1e-10", "tol" → "1e-10"), or "".
func specValue(spec, key string) string {
	_, params, _ := strings.Cut(spec, ":")
	pairs, _ := keyval.Split(params)
	for _, p := range pairs {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}
