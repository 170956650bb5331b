package solver

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSettingsTable: the table names every settable field of Settings
// once, by its path, with the type of the field.
func TestSettingsTable(t *testing.T) {
	var want []string
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			switch {
			case !f.IsExported() || f.Name == "Estimator" || f.Name == "Recorder" || f.Name == "Checkpoint":
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, prefix+f.Name+".")
			default:
				want = append(want, prefix+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[Settings](), "")
	var got []string
	keys := map[string]bool{}
	for _, e := range SettingsTable() {
		got = append(got, e.Field)
		require.False(t, keys[e.Key], "key %s twice", e.Key)
		keys[e.Key] = true
		require.Equal(t, strings.ToLower(e.Key), e.Key)
		require.NotEmpty(t, e.Doc, e.Key)
		info, ok := LookupSetting(strings.ToUpper(e.Key))
		require.True(t, ok)
		require.Equal(t, e, info)
	}
	require.ElementsMatch(t, want, got)
	_, ok := LookupSetting("nope")
	require.False(t, ok)
}

func TestParseSettings(t *testing.T) {
	base := Settings{EtaX: 0.5, Estimator: HInv{}}
	s, err := ParseSettings(" eta_y=0.25 , Inner=7,runtime=1m30s,seed=18446744073709551615,lower_bb=true,batch_report=3", base)
	require.NoError(t, err)
	require.Equal(t, Settings{EtaX: 0.5, EtaY: 0.25, InnerIters: 7, Runtime: 90 * time.Second, Seed: math.MaxUint64,
		Lower: LowerRule{BB: true}, Batches: Batches{Report: 3}, Estimator: HInv{}}, s)

	s, err = ParseSettings("", base)
	require.NoError(t, err)
	require.Equal(t, base, s)

	s, err = ParseSettings("epochs=5,preset=adaptive,upper_bb=false,runtime=2.5", Settings{})
	require.NoError(t, err)
	want := AdaptiveSettings()
	want.Epochs, want.Upper.BB, want.Runtime = 5, false, 2500*time.Millisecond
	require.Equal(t, want, s)

	for spec, key := range map[string]string{
		"eta_x=-1": "eta_x", "eta_x=NaN": "eta_x", "grad_tol=inf": "grad_tol", "epochs=1.5": "epochs",
		"inner=-2": "inner", "seed=-1": "seed", "lower_bb=maybe": "lower_bb", "runtime=inf": "runtime",
		"runtime=-1s": "runtime", "runtime=-1": "runtime", "foo=1": "foo", "eta_x": "eta_x",
		"eta_x=1,eta_x=2": "eta_x", "preset=fast": "preset",
	} {
		got, err := ParseSettings(spec, base)
		require.Error(t, err, spec)
		require.True(t, errors.Is(err, ErrBadSetting), spec)
		require.Contains(t, err.Error(), key, spec)
		require.Equal(t, base, got, spec)
	}
}

// TestSettingsStringRoundTrip: String writes every settable field and
// ParseSettings reads it back exactly, for edge values and random ones.
func TestSettingsStringRoundTrip(t *testing.T) {
	check := func(s Settings) {
		t.Helper()
		got, err := ParseSettings(s.String(), Settings{})
		require.NoError(t, err, s.String())
		require.Equal(t, s, got, s.String())
	}
	check(Settings{})
	s := AdaptiveSettings()
	a, b := 0.1, 0.2
	s.EtaX, s.Runtime, s.Seed, s.FDStep = a+b, time.Nanosecond, math.MaxUint64, math.SmallestNonzeroFloat64
	check(s)
	require.Contains(t, s.String(), "eta_x=0.30000000000000004,")
	require.Contains(t, s.String(), "runtime=0.000000001,")
	// A zero that stands for the default is left out, as a spec must.
	require.True(t, strings.HasPrefix(Settings{EtaX: 0.5}.String(), "eta_x=0.5,grad_tol=0,"))
	def, err := (&Settings{}).WithDefaults()
	require.NoError(t, err)
	def.Estimator = nil
	check(def)
	for _, e := range settingsTable {
		require.Contains(t, ","+def.String(), ","+e.Key+"=", "WithDefaults' settings have every key")
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var s Settings
		for _, e := range settingsTable {
			switch p := e.ptr(&s).(type) {
			case *float64:
				switch rng.IntN(4) {
				case 0:
				case 1:
					*p = rng.Float64()
				case 2:
					*p = math.Float64frombits(rng.Uint64() >> 2) // any finite magnitude
				default:
					*p = math.MaxFloat64 * rng.Float64()
				}
			case *int:
				*p = rng.IntN(maxInt + 1)
			case *uint64:
				*p = rng.Uint64()
			case *bool:
				*p = rng.IntN(2) == 1
			case *time.Duration:
				*p = time.Duration(rng.Int64())
			}
		}
		check(s)
	}
}

// FuzzParseSettings: any spec either fails with ErrBadSetting or gives
// settings that String writes back exactly.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{"", "eta_x=0.5", "preset=adaptive,epochs=3", "runtime=1m,seed=7", "lower_bb=1,upper_max_step=1e300", "a", "eta_x=1,eta_x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSettings(spec, Settings{})
		if err != nil {
			require.ErrorIs(t, err, ErrBadSetting)
			return
		}
		back, err := ParseSettings(s.String(), Settings{})
		require.NoError(t, err)
		require.Equal(t, s, back)
	})
}

// TestParseSettingsZeroIsDefault: 0 for a key whose zero stands for its
// default is an error that names the key and the default it would have
// silently been (issue 27); 0 for any other key means 0. The table's
// ZeroIsDefault agrees with WithDefaults: the fields it fills are exactly
// those, with the table's Default where that is a number.
func TestParseSettingsZeroIsDefault(t *testing.T) {
	base := Settings{EtaX: 0.5, Estimator: HInv{}}
	def, err := (&Settings{}).WithDefaults()
	require.NoError(t, err)
	n := 0
	for _, e := range settingsTable {
		if !e.ZeroIsDefault {
			zero := "0"
			if e.Type == "bool" {
				zero = "false"
			}
			s, err := ParseSettings(e.Key+"="+zero, base)
			require.NoError(t, err, e.Key)
			require.True(t, e.zero(&s), e.Key)
			require.True(t, e.zero(&def), "WithDefaults fills %s, whose zero is not a default", e.Key)
			continue
		}
		n++
		require.False(t, e.zero(&def), "WithDefaults leaves %s zero", e.Key)
		if x, err := strconv.ParseFloat(e.Default, 64); err == nil {
			require.Equal(t, strconv.FormatFloat(x, 'g', -1, 64), e.format(&def), e.Key)
		}
		zeros := []string{"0", "-0"}
		if e.Type == "float" {
			zeros = append(zeros, "0.0", "0e5")
		}
		for _, z := range zeros {
			spec := e.Key + "=" + z
			got, err := ParseSettings(spec, base)
			require.ErrorIs(t, err, ErrBadSetting, spec)
			require.Equal(t, base, got, spec)
			require.ErrorContains(t, err, spec+" would mean the default, not 0; leave "+e.Key+" out for the default (", spec)
			want := e.Default
			if e.Key == "eta_x" {
				want = "0.5" // base's
			}
			require.ErrorContains(t, err, "the default ("+want+")", spec)
		}
	}
	require.Equal(t, 9, n, "eta_x, eta_y, inner, epochs, diverge, fd_step, lower_maxiter, upper_min_step, upper_max_step")
	_, err = ParseSettings("epochs=0", Settings{Epochs: 100})
	require.EqualError(t, err, `solver: bad setting: settings "epochs=0": epochs=0 would mean the default, not 0; leave epochs out for the default (100)`)
	_, err = ParseSettings("preset=adaptive,epochs=3,lower_maxiter=0", Settings{})
	require.ErrorContains(t, err, "leave lower_maxiter out for the default (10·inner)")
}

// TestEstimatorKeys: ParseEstimator reads every option of
// EstimatorTable (and no other), 0 for a key whose zero stands for its
// default is an error naming the key and the default, a negative value
// for such a key is an error of its own unless the key gives negatives
// a meaning (fo's growth), and the table's
// numeric defaults are what leaving the key out gives.
func TestEstimatorKeys(t *testing.T) {
	str := func(spec string) string {
		t.Helper()
		e, err := ParseEstimator(spec)
		require.NoError(t, err, spec)
		return e.(fmt.Stringer).String()
	}
	for _, est := range EstimatorTable() {
		for _, e := range est.Options {
			str(est.Name + ":" + e.Key + "=1")
			spec := est.Name + ":" + e.Key + "=0"
			if !e.ZeroIsDefault {
				str(spec)
				continue
			}
			// A negative value is the spec's error, not the Go field's
			// "want ≥ 0 (0: default …)", whose 0 a spec cannot give.
			neg := est.Name + ":" + e.Key + "=-1"
			if e.Negative {
				str(neg)
			} else {
				_, err := ParseEstimator(neg)
				require.ErrorIs(t, err, ErrBadSetting, neg)
				require.ErrorContains(t, err, e.Key+`="-1" is not a positive`, neg)
			}
			_, err := ParseEstimator(spec)
			require.ErrorIs(t, err, ErrBadSetting, spec)
			require.ErrorContains(t, err, e.Key+"=0 would mean the default, not 0; leave "+e.Key+" out for the default ("+e.Default+")", spec)
			if e.Hint != "" {
				require.ErrorContains(t, err, e.Hint, spec)
			}
			if _, err := strconv.ParseFloat(e.Default, 64); err == nil {
				require.Equal(t, str(est.Name), str(est.Name+":"+e.Key+"="+e.Default), spec)
			}
		}
	}
	_, err := ParseEstimator("neumann:gamma=0.0")
	require.ErrorContains(t, err, "gamma=0.0 would mean the default")
	_, err = ParseEstimator("ns:terms=-0")
	require.ErrorContains(t, err, "terms=-0 would mean the default")
	_, err = ParseEstimator("cg:maxiter=5,maxiter=6")
	require.ErrorIs(t, err, ErrBadSetting)
	require.ErrorContains(t, err, "maxiter given twice")
	_, err = ParseEstimator("fo:lamda=3")
	require.ErrorContains(t, err, "want lambda, growth, power, zsteps, eta, ztol")
	_, err = ParseEstimator("hinv:tol=1")
	require.ErrorContains(t, err, "want maxdim")
	_, err = ParseEstimator("ad:tol=1")
	require.ErrorContains(t, err, "it takes none")
}

// TestSettingsZeroDoc: the Go documentation states the rule for zero that
// ParseSettings enforces (issue 29: EtaX = 0 silently ran η_x = 0.1): the
// Settings type's list of the fields that are never 0 is the table's
// ZeroIsDefault fields, and each of those fields' comments says that
// zero is the default.
func TestSettingsZeroDoc(t *testing.T) {
	fset := token.NewFileSet()
	docs := map[string]string{} // "Settings", "Settings.EtaX", "LowerRule.MaxIters", ...
	for _, file := range []string{"rhgd.go", "adaptive.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, sp := range g.Specs {
				ts := sp.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				docs[ts.Name.Name] = g.Doc.Text()
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						docs[ts.Name.Name+"."+n.Name] = fl.Doc.Text()
					}
				}
			}
		}
	}
	var want []string
	for _, e := range SettingsTable() {
		if !e.ZeroIsDefault {
			continue
		}
		want = append(want, e.Field)
		field := "Settings." + e.Field
		field = strings.NewReplacer("Settings.Lower.", "LowerRule.", "Settings.Upper.", "UpperRule.").Replace(field)
		doc, ok := docs[field]
		require.True(t, ok, "no comment found for %s", field)
		require.Contains(t, strings.Join(strings.Fields(doc), " "), "(zero: the default)", field)
	}
	_, list, ok := strings.Cut(strings.Join(strings.Fields(docs["Settings"]), " "), "Those never 0: ")
	require.True(t, ok, "Settings' comment lists the fields that are never 0")
	list, _, _ = strings.Cut(list, ". ")
	var got []string
	for _, f := range strings.Split(list, ",") {
		got = append(got, strings.TrimSpace(f))
	}
	require.Equal(t, want, got)
}

// TestEstimatorTableFields: each option of the estimators' table sets the
// field it names, the table's names are unique and its types are the
// fields' (a damping option sets Damping and AutoDamping), and String
// writes no key the table lacks.
func TestEstimatorTableFields(t *testing.T) {
	seen := map[string]bool{}
	for _, ent := range estimatorTable {
		for _, n := range append([]string{ent.info.Name}, ent.info.Aliases...) {
			require.False(t, seen[n], n)
			seen[n] = true
		}
		require.Len(t, ent.ptrs, len(ent.info.Options), ent.info.Name)
		e := ent.new()
		require.Equal(t, ent.info.Name, e.Name())
		for i, o := range ent.info.Options {
			v := reflect.ValueOf(e)
			if v.Kind() == reflect.Pointer {
				v = v.Elem()
			}
			f := v.FieldByName(o.Field)
			require.True(t, f.IsValid(), "%s has no field %s", ent.info.Name, o.Field)
			p := ent.ptrs[i](e)
			if d, ok := p.(damping); ok {
				require.Equal(t, "damping", o.Type, o.Key)
				require.Equal(t, f.Addr().Interface(), d.delta, o.Key)
				require.Equal(t, v.FieldByName("AutoDamping").Addr().Interface(), d.auto, o.Key)
				continue
			}
			require.Equal(t, f.Addr().Interface(), p, o.Key)
			want := map[reflect.Kind]string{reflect.Int: "int", reflect.Float64: "float", reflect.Bool: "bool"}[f.Kind()]
			require.Equal(t, want, o.Type, o.Key)
		}
		_, params, _ := strings.Cut(fmt.Sprint(e), ":")
		for _, kv := range strings.Split(params, ",") {
			k, _, _ := strings.Cut(kv, "=")
			if k == "" {
				continue
			}
			found := false
			for _, o := range ent.info.Options {
				found = found || o.Key == k
			}
			require.True(t, found, "%s writes %s", ent.info.Name, k)
		}
	}
}
