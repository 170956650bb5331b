package problems

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/rhgd/rhgd/numerr"
)

// Params is a pointer to a problem's Params struct. The struct embeds
// Options (Common returns it) and tags each of its own parameters with
// its name and help text, which is the field's documentation:
//
//	N int `rhgd:"n" doc:"samples (rows of X and Y) of generated data"`
//
// From the tags Bind makes the command line's flags, and Fields and
// SetParams the C ABI's key=value parameters and Python's keywords, so
// that a new field appears in all three at once. Fields may be int,
// uint64, float64, string or bool; untagged fields are left out.
//
// A number whose zero value is not a value of its own but stands for a
// default that Build works out (domain adaptation's baseline λ: the
// paper's for the pair) says so with a zero tag, the default in words:
//
//	BaselineLambda float64 `rhgd:"baseline-lambda" zero:"the paper's" doc:"..."`
//
// Its flag and key=value parameter then refuse 0, which would silently
// be the default (issue 27): the caller leaves the parameter out instead.
type Params interface {
	Common() *Options
}

// Common returns o itself, so that a Params struct that embeds Options
// is a Params through its pointer.
func (o *Options) Common() *Options { return o }

// ErrBadParam signifies a parameter that a problem does not have, or a
// value that does not parse (numerr.ErrInvalid).
var ErrBadParam = numerr.New(numerr.ErrInvalid, "problems: bad parameter")

// Field is one parameter of a problem's Params, as Fields lists it.
type Field struct {
	// Name is the command line's flag, words joined by '-' ("start-seed").
	Name string
	// Key is the C ABI's parameter and Python's keyword, words joined by
	// '_' ("start_seed"), as the solver settings are named (eta_x).
	Key string
	// Doc is the help text.
	Doc string
	// Default is the value the parameter had when listed, as the flag
	// package prints it ("0.01", "7").
	Default string
	// Kind is the Go kind of the field: Int, Uint64, Float64, String or
	// Bool.
	Kind reflect.Kind
	// Zero is the field's zero tag: when not empty, the default that a
	// zero field stands for, in words. The parameter is never 0 (Set
	// refuses it), and Default is empty while the field is zero.
	Zero string

	value flag.Value
}

// Set sets the field of the Params that Fields listed from its text, as
// the command line parses the flag.
func (f Field) Set(s string) error { return f.value.Set(s) }

// Bind registers each tagged field of p as a flag on fs, bound to the
// field: its default is the field's present value, its usage the doc tag.
// It panics when p is not a pointer to a struct, or a tagged field has a
// kind it cannot bind: both are mistakes in the problem's code.
func Bind(fs *flag.FlagSet, p Params) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("problems: Bind of %T, want a pointer to a Params struct", p))
	}
	v = v.Elem()
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, ok := sf.Tag.Lookup("rhgd")
		if !ok {
			continue
		}
		doc := sf.Tag.Get("doc")
		if def, ok := sf.Tag.Lookup("zero"); ok {
			switch k := sf.Type.Kind(); k {
			case reflect.Int, reflect.Uint64, reflect.Float64:
			default:
				panic(fmt.Sprintf("problems: %T.%s has a zero tag on a %s, not a number", p, sf.Name, k))
			}
			fs.Var(&zeroDefault{field: v.Field(i), def: def}, name, doc+" (default: "+def+")")
			continue
		}
		switch ptr := v.Field(i).Addr().Interface().(type) {
		case *int:
			fs.IntVar(ptr, name, *ptr, doc)
		case *uint64:
			fs.Uint64Var(ptr, name, *ptr, doc)
		case *float64:
			fs.Float64Var(ptr, name, *ptr, doc)
		case *string:
			fs.StringVar(ptr, name, *ptr, doc)
		case *bool:
			fs.BoolVar(ptr, name, *ptr, doc)
		default:
			panic(fmt.Sprintf("problems: %T.%s is a %s, which Bind cannot bind", p, sf.Name, sf.Type))
		}
	}
}

// zeroDefault is the flag of a number with a zero tag: it parses as the
// flag package's flag of its kind does, but refuses 0, and writes
// nothing for a zero field (its default is the tag's words).
type zeroDefault struct {
	field reflect.Value // the addressable field
	def   string
}

func (z *zeroDefault) String() string {
	if z == nil || !z.field.IsValid() || isZeroNumber(z.field) {
		return ""
	}
	return fmt.Sprint(z.field.Interface())
}

func (z *zeroDefault) Set(s string) error {
	v := reflect.New(z.field.Type())
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	switch ptr := v.Interface().(type) {
	case *int:
		fs.IntVar(ptr, "v", 0, "")
	case *uint64:
		fs.Uint64Var(ptr, "v", 0, "")
	case *float64:
		fs.Float64Var(ptr, "v", 0, "")
	}
	if err := fs.Set("v", s); err != nil {
		return err
	}
	if isZeroNumber(v.Elem()) {
		return fmt.Errorf("0 would mean the default, not 0; leave it out for the default (%s)", z.def)
	}
	z.field.Set(v.Elem())
	return nil
}

// isZeroNumber reports whether v, an int, uint64 or float64, is 0 (−0
// too).
func isZeroNumber(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int:
		return v.Int() == 0
	case reflect.Uint64:
		return v.Uint() == 0
	default:
		return v.Float() == 0
	}
}

// Fields lists the tagged fields of p by name, with their present values
// as defaults; each Field's Set sets the field of p.
func Fields(p Params) []Field {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Bind(fs, p)
	kinds, zeros := map[string]reflect.Kind{}, map[string]string{}
	t := reflect.TypeOf(p).Elem()
	for i := range t.NumField() {
		if name, ok := t.Field(i).Tag.Lookup("rhgd"); ok {
			kinds[name] = t.Field(i).Type.Kind()
			zeros[name] = t.Field(i).Tag.Get("zero")
		}
	}
	var out []Field
	fs.VisitAll(func(f *flag.Flag) {
		out = append(out, Field{Name: f.Name, Key: strings.ReplaceAll(f.Name, "-", "_"), Doc: f.Usage,
			Default: f.DefValue, Kind: kinds[f.Name], Zero: zeros[f.Name], value: f.Value})
	})
	return out
}

// SetParams sets parameters of p from "key=value" strings, as the C ABI
// and Python give them; a key is a Field's Key or its Name. It sets all
// or, on error, none of them. The error names the parameter (its message
// is the C ABI's, without a prefix) and wraps ErrBadParam.
func SetParams(p Params, kv ...string) error {
	// Set a copy: the flag package zeroes a field whose value fails to parse.
	dst := reflect.ValueOf(p).Elem()
	cp := reflect.New(dst.Type())
	cp.Elem().Set(dst)
	if err := setParams(cp.Interface().(Params), kv); err != nil {
		return err
	}
	dst.Set(cp.Elem())
	return nil
}

// setParams is SetParams on p itself.
func setParams(p Params, kv []string) error {
	fields := Fields(p)
	for _, s := range kv {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || strings.HasPrefix(k, "-") {
			return paramErrorf("parameter %q is not key=value", s)
		}
		i := fieldIndex(fields, k)
		if i < 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.Key
			}
			return paramErrorf("unknown parameter %q; its parameters are %s", k, strings.Join(keys, ", "))
		}
		f := fields[i]
		if err := f.Set(v); err != nil {
			if f.Default == "" && f.Zero != "" { // the doc says the default
				return paramErrorf("invalid value %q for parameter %s (%s): %v", v, k, f.Doc, err)
			}
			return paramErrorf("invalid value %q for parameter %s (%s, default %s): %v", v, k, f.Doc, f.Default, err)
		}
	}
	return nil
}

// Param returns the term (numerr.Term) of a problem's parameter named by
// its flag ("source", "baseline-lambda") or "data", for a builder's
// message: the C ABI and Python spell it by its key ("baseline_lambda"),
// Go and the command line by the flag ("-baseline-lambda").
func Param(name string) numerr.Term {
	return numerr.Term{Kind: numerr.KindParam, Key: strings.ReplaceAll(name, "-", "_"), Go: "-" + name}
}

// paramError is SetParams's error: its message alone, wrapping
// ErrBadParam.
type paramError struct{ msg string }

func paramErrorf(format string, args ...any) error {
	return &paramError{fmt.Sprintf(format, args...)}
}

func (e *paramError) Error() string { return e.msg }
func (e *paramError) Unwrap() error { return ErrBadParam }

// fieldIndex returns the index of the field whose Key or Name is k, or −1.
func fieldIndex(fields []Field, k string) int {
	for i, f := range fields {
		if f.Key == k || f.Name == k {
			return i
		}
	}
	return -1
}

// Define returns spec with its New and Build made from a problem's
// DefaultParams and Build, so that the catalog, the command line and the
// C ABI reach the problem through its typed Params.
func Define[P any, PP interface {
	*P
	Params
}](spec Spec, defaults func() P, build func(P) (*Instance, error)) Spec {
	spec.New = func() Params {
		p := defaults()
		return PP(&p)
	}
	spec.Build = func(p Params) (*Instance, error) {
		q, ok := p.(PP)
		if !ok || q == nil {
			return nil, fmt.Errorf("%w: %s takes %T, not %T", ErrBadParam, spec.Name, PP(nil), p)
		}
		return build(*q)
	}
	return spec
}

// Flags registers the problem's parameters on fs as flags, with the
// paper's defaults (Bind), and returns the function that builds an
// Instance from them with o once fs is parsed. Flags may be called once
// per FlagSet.
func (s Spec) Flags(fs *flag.FlagSet) func(o Options) (*Instance, error) {
	p := s.New()
	Bind(fs, p)
	return func(o Options) (*Instance, error) {
		*p.Common() = o
		return s.Build(p)
	}
}
