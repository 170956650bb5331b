package main

import (
	"flag"
	"fmt"

	"github.com/rhgd/rhgd/problems"
)

// bindParams registers each parameter of p (problems.Fields) as a flag on
// fs, bound to its field: its default the field's present value, its
// usage the doc tag. A parameter whose zero stands for a default (a zero
// tag) refuses 0 (Field.Set).
func bindParams(fs *flag.FlagSet, p problems.Params) {
	for _, f := range problems.Fields(p) {
		if f.Zero != "" {
			fs.Var(paramFlag{f}, f.Name, f.Doc)
			continue
		}
		switch ptr := f.Ptr().(type) {
		case *int:
			fs.IntVar(ptr, f.Name, *ptr, f.Doc)
		case *uint64:
			fs.Uint64Var(ptr, f.Name, *ptr, f.Doc)
		case *float64:
			fs.Float64Var(ptr, f.Name, *ptr, f.Doc)
		case *string:
			fs.StringVar(ptr, f.Name, *ptr, f.Doc)
		case *bool:
			fs.BoolVar(ptr, f.Name, *ptr, f.Doc)
		default:
			panic(fmt.Sprintf("rhgd: parameter %s is a %T", f.Name, ptr)) // Fields lists no other
		}
	}
}

// paramFlag is the flag of a parameter with a zero tag: Field.Set parses
// it and refuses 0, and a zero field shows no default (its default is the
// tag's words, in the usage).
type paramFlag struct{ f problems.Field }

func (p paramFlag) String() string {
	if p.f.Name == "" {
		return "" // the flag package's zero Value, for its help
	}
	return p.f.String()
}

func (p paramFlag) Set(s string) error { return p.f.Set(s) }

// Get returns a float's value, for finiteFloats.
func (p paramFlag) Get() any {
	if x, ok := p.f.Ptr().(*float64); ok {
		return *x
	}
	return p.f.String()
}

// specFlags registers the problem's parameters on fs as flags, with the
// paper's defaults, and returns the function that builds an Instance from
// them with o once fs is parsed. It may be called once per FlagSet.
func specFlags(spec *problems.Spec, fs *flag.FlagSet) func(o problems.Options) (*problems.Instance, error) {
	p := spec.New()
	bindParams(fs, p)
	return func(o problems.Options) (*problems.Instance, error) {
		*p.Common() = o
		return spec.Build(p)
	}
}
