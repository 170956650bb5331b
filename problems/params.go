package problems

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/numerr"
)

// Params is a pointer to a problem's Params struct. The struct embeds
// Options (Common returns it) and tags each of its own parameters with
// its name and help text, which is the field's documentation:
//
//	N int `rhgd:"n" doc:"samples (rows of X and Y) of generated data"`
//
// From the tags Fields lists the parameters, which the command line
// binds as flags (cmd/rhgd) and SetParams sets from the C ABI's key=value
// parameters and Python's keywords, so that a new field appears in all
// three at once. Fields may be int, uint64, float64, string or bool;
// untagged fields are left out.
//
// A number whose zero value is not a value of its own but stands for a
// default that Build works out (domain adaptation's baseline λ: the
// paper's for the pair) says so with a zero tag, the default in words:
//
//	BaselineLambda float64 `rhgd:"baseline-lambda" zero:"the paper's" doc:"..."`
//
// Its Set then refuses 0, which would silently be the default (issue
// 27): the caller leaves the parameter out instead.
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
	// Default is the value the parameter had when listed, as Set reads it
	// back ("0.01", "7").
	Default string
	// Kind is the Go kind of the field: Int, Uint64, Float64, String or
	// Bool.
	Kind reflect.Kind
	// Zero is the field's zero tag: when not empty, the default that a
	// zero field stands for, in words. The parameter is never 0 (Set
	// refuses it), and Default is empty while the field is zero.
	Zero string

	value reflect.Value // the addressable field
}

// Set sets the field of the Params that Fields listed from its text: an
// integer (decimal, or 0x hexadecimal), a number, true or false, or a
// string, by the field's kind, as the command line's flags read them. A
// 0 for a field with a zero tag is an error saying to leave it out.
func (f Field) Set(s string) error {
	v := reflect.New(f.value.Type()).Elem()
	switch f.Kind {
	case reflect.Int:
		n, err := strconv.ParseInt(s, 0, strconv.IntSize)
		if err != nil {
			return numError(err)
		}
		v.SetInt(n)
	case reflect.Uint64:
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return numError(err)
		}
		v.SetUint(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return numError(err)
		}
		v.SetFloat(x)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("parse error")
		}
		v.SetBool(b)
	default:
		v.SetString(s)
	}
	if f.Zero != "" && isZeroNumber(v) {
		return fmt.Errorf("0 would mean the default, not 0; leave it out for the default (%s)", f.Zero)
	}
	f.value.Set(v)
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

// numError is a number's parse error in the words of the flag package,
// which the command line's messages and the C ABI's share.
func numError(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	return errors.New("parse error")
}

// String returns the field's present value as Set reads it back; "" for
// a zero field with a zero tag, whose default is the tag's words.
func (f Field) String() string {
	if f.Zero != "" && isZeroNumber(f.value) {
		return ""
	}
	switch f.Kind {
	case reflect.Int:
		return strconv.FormatInt(f.value.Int(), 10)
	case reflect.Uint64:
		return strconv.FormatUint(f.value.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(f.value.Float(), 'g', -1, 64)
	case reflect.Bool:
		return strconv.FormatBool(f.value.Bool())
	}
	return f.value.String()
}

// Ptr returns a pointer to the field: *int, *uint64, *float64, *string
// or *bool, for a front end that binds it (the command line's flags).
func (f Field) Ptr() any { return f.value.Addr().Interface() }

// Fields lists the tagged fields of p, sorted by name, with their present
// values as defaults; each Field's Set sets the field of p. It panics when
// p is not a pointer to a struct, or a tagged field has a kind it cannot
// set or a zero tag on a non-number: both are mistakes in the problem's
// code.
func Fields(p Params) []Field {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("problems: Fields of %T, want a pointer to a Params struct", p))
	}
	v = v.Elem()
	var out []Field
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, ok := sf.Tag.Lookup("rhgd")
		if !ok {
			continue
		}
		f := Field{Name: name, Key: strings.ReplaceAll(name, "-", "_"), Doc: sf.Tag.Get("doc"), Kind: sf.Type.Kind(),
			Zero: sf.Tag.Get("zero"), value: v.Field(i)}
		switch f.Kind {
		case reflect.Int, reflect.Uint64, reflect.Float64:
		case reflect.String, reflect.Bool:
			if f.Zero != "" {
				panic(fmt.Sprintf("problems: %T.%s has a zero tag on a %s, not a number", p, sf.Name, f.Kind))
			}
		default:
			panic(fmt.Sprintf("problems: %T.%s is a %s, which a parameter cannot be", p, sf.Name, sf.Type))
		}
		if f.Zero != "" {
			f.Doc += " (default: " + f.Zero + ")"
		}
		f.Default = f.String()
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SetParams sets parameters of p from "key=value" strings, as the C ABI
// and Python give them; a key is a Field's Key or its Name. It sets all
// or, on error, none of them. The error names the parameter (its message
// is the C ABI's, without a prefix) and wraps ErrBadParam.
func SetParams(p Params, kv ...string) error {
	// Set a copy: all of kv or, on error, none of it.
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
