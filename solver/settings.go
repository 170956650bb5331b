package solver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rhgd/rhgd/internal/keyval"
)

// SettingInfo describes one key of ParseSettings: the one table of
// settable Settings fields that the CLI's flags, the C ABI's settings and
// the docs of the C header and the Python package are checked against,
// so that a new field reaches every binding at once.
type SettingInfo struct {
	// Key is the settings key, as the C ABI and Python spell it: "eta_x".
	// The CLI's flag is the key with dashes: -eta-x.
	Key string
	// Field is the Settings field it sets: "EtaX", "Lower.Tol".
	Field string
	// Type is the value's syntax: "float" (a finite number ≥ 0), "int"
	// (an integer ≥ 0), "uint64", "bool" (true or false) or "seconds" (a
	// finite number of seconds ≥ 0, or a Go duration such as 1m30s); not
	// 0 when ZeroIsDefault.
	Type string
	// Default is the value a zero field stands for, in words: the
	// default when ZeroIsDefault, else what zero means ("0: off").
	Default string
	// ZeroIsDefault says that the field's zero value is not a value of
	// its own but stands for Default (Go's Settings{} is the defaults,
	// as in gonum: a zero field is a field left out, see Settings). A
	// spec cannot say 0 for such a key: ParseSettings
	// rejects it, naming the key and the default, rather than silently
	// running the default; String leaves the key out while the field is
	// zero. Keys whose zero means zero (grad_tol=0: off) do not have it.
	ZeroIsDefault bool
	// Doc says what the setting does, in one line.
	Doc string
}

// setting is a SettingInfo with its field.
type setting struct {
	SettingInfo
	ptr func(*Settings) any // *float64, *int, *uint64, *bool or *time.Duration
}

// settingsTable is the table of settable fields, in the order String
// writes them. Estimator and Recorder are not settings of a spec: the
// estimator has its own (ParseEstimator), and a recorder is code.
var settingsTable = []setting{
	{SettingInfo{Key: "eta_x", Field: "EtaX", Type: "float", Default: "0.1", ZeroIsDefault: true,
		Doc: "upper step size η_x"}, func(s *Settings) any { return &s.EtaX }},
	{SettingInfo{Key: "eta_y", Field: "EtaY", Type: "float", Default: "0.1", ZeroIsDefault: true,
		Doc: "lower step size η_y"}, func(s *Settings) any { return &s.EtaY }},
	{SettingInfo{Key: "inner", Field: "InnerIters", Type: "int", Default: "20", ZeroIsDefault: true,
		Doc: "lower steps per epoch, S"}, func(s *Settings) any { return &s.InnerIters }},
	{SettingInfo{Key: "epochs", Field: "Epochs", Type: "int", Default: "200", ZeroIsDefault: true,
		Doc: "epoch limit, K"}, func(s *Settings) any { return &s.Epochs }},
	{SettingInfo{Key: "grad_tol", Field: "GradTol", Type: "float", Default: "0: off",
		Doc: "stop once ‖hypergradient‖ ≤ grad_tol (fo: ‖hypergradient‖ plus its bias estimate)"}, func(s *Settings) any { return &s.GradTol }},
	{SettingInfo{Key: "rel_grad_tol", Field: "RelGradTol", Type: "float", Default: "0: off",
		Doc: "stop once ‖hypergradient‖ ≤ rel_grad_tol times its first value (fo: ‖hypergradient‖ plus its bias estimate)"}, func(s *Settings) any { return &s.RelGradTol }},
	{SettingInfo{Key: "runtime", Field: "Runtime", Type: "seconds", Default: "0: off",
		Doc: "time limit"}, func(s *Settings) any { return &s.Runtime }},
	{SettingInfo{Key: "diverge", Field: "DivergeFactor", Type: "float", Default: "1e8", ZeroIsDefault: true,
		Doc: "divergence factor"}, func(s *Settings) any { return &s.DivergeFactor }},
	{SettingInfo{Key: "fd_step", Field: "FDStep", Type: "float", Default: "ε^(1/3)", ZeroIsDefault: true,
		Doc: "relative finite-difference step"}, func(s *Settings) any { return &s.FDStep }},
	{SettingInfo{Key: "seed", Field: "Seed", Type: "uint64", Default: "0",
		Doc: "seed of the estimators' and batches' randomness"}, func(s *Settings) any { return &s.Seed }},
	{SettingInfo{Key: "batch_lower", Field: "Batches.Lower", Type: "int", Default: "0: whole sum",
		Doc: "RSHGD's lower-gradient minibatch |B1|"}, func(s *Settings) any { return &s.Batches.Lower }},
	{SettingInfo{Key: "batch_upper", Field: "Batches.Upper", Type: "int", Default: "0: whole sum",
		Doc: "RSHGD's upper-gradient minibatch |B2|"}, func(s *Settings) any { return &s.Batches.Upper }},
	{SettingInfo{Key: "batch_cross", Field: "Batches.Cross", Type: "int", Default: "0: whole sum",
		Doc: "RSHGD's cross-derivative minibatch |B3|"}, func(s *Settings) any { return &s.Batches.Cross }},
	{SettingInfo{Key: "batch_hess", Field: "Batches.Hess", Type: "int", Default: "0: whole sum",
		Doc: "RSHGD's Hessian minibatch |B4|"}, func(s *Settings) any { return &s.Batches.Hess }},
	{SettingInfo{Key: "batch_report", Field: "Batches.Report", Type: "int", Default: "0: whole sum",
		Doc: "components of f in each epoch's reported value"}, func(s *Settings) any { return &s.Batches.Report }},
	{SettingInfo{Key: "lower_solve", Field: "Lower.UseLowerSolve", Type: "bool", Default: "false",
		Doc: "the problem's exact lower solution instead of lower steps"}, func(s *Settings) any { return &s.Lower.UseLowerSolve }},
	{SettingInfo{Key: "lower_tol", Field: "Lower.Tol", Type: "float", Default: "0: off",
		Doc: "end the lower loop once ‖grad_y g‖ ≤ lower_tol·‖last hypergradient‖"}, func(s *Settings) any { return &s.Lower.Tol }},
	{SettingInfo{Key: "lower_maxiter", Field: "Lower.MaxIters", Type: "int", Default: "10·inner", ZeroIsDefault: true,
		Doc: "cap of an adaptive lower loop"}, func(s *Settings) any { return &s.Lower.MaxIters }},
	{SettingInfo{Key: "lower_err_bound", Field: "Lower.ErrBound", Type: "bool", Default: "false",
		Doc: "lower_tol bounds the error bound's lower-level term, not ‖grad_y g‖"}, func(s *Settings) any { return &s.Lower.ErrBound }},
	{SettingInfo{Key: "lower_bb", Field: "Lower.BB", Type: "bool", Default: "false",
		Doc: "Barzilai–Borwein lower steps with a nonmonotone line search"}, func(s *Settings) any { return &s.Lower.BB }},
	{SettingInfo{Key: "lower_adagrad", Field: "Lower.AdaGrad", Type: "bool", Default: "false",
		Doc: "AdaRHD's AdaGrad-norm lower steps"}, func(s *Settings) any { return &s.Lower.AdaGrad }},
	{SettingInfo{Key: "upper_bb", Field: "Upper.BB", Type: "bool", Default: "false",
		Doc: "safeguarded Barzilai–Borwein upper steps"}, func(s *Settings) any { return &s.Upper.BB }},
	{SettingInfo{Key: "upper_adagrad", Field: "Upper.AdaGrad", Type: "bool", Default: "false",
		Doc: "AdaRHD's AdaGrad-norm upper steps"}, func(s *Settings) any { return &s.Upper.AdaGrad }},
	{SettingInfo{Key: "upper_min_step", Field: "Upper.MinStep", Type: "float", Default: "eta_x/1000", ZeroIsDefault: true,
		Doc: "least BB upper step"}, func(s *Settings) any { return &s.Upper.MinStep }},
	{SettingInfo{Key: "upper_max_step", Field: "Upper.MaxStep", Type: "float", Default: "1000·eta_x", ZeroIsDefault: true,
		Doc: "greatest BB upper step"}, func(s *Settings) any { return &s.Upper.MaxStep }},
	{SettingInfo{Key: "lanczos", Field: "Lanczos", Type: "int", Default: "0: off (CG estimates its own)",
		Doc: "Lanczos steps estimating the lower Hessian's extreme eigenvalues each epoch"}, func(s *Settings) any { return &s.Lanczos }},
}

// PresetKey is the key of ParseSettings that is no field: preset=paper
// keeps the base's rules, preset=adaptive applies ApplyAdaptive and
// preset=adarhd ApplyAdaRHD to it (Presets lists them) before the other
// keys, wherever it stands in the spec.
const PresetKey = "preset"

// SettingsTable returns the keys ParseSettings reads, besides PresetKey,
// in the order Settings.String writes them.
func SettingsTable() []SettingInfo {
	out := make([]SettingInfo, len(settingsTable))
	for i, s := range settingsTable {
		out[i] = s.SettingInfo
	}
	return out
}

// LookupSetting returns the table's entry for key (case-insensitive).
func LookupSetting(key string) (SettingInfo, bool) {
	if s := lookupSetting(strings.ToLower(key)); s != nil {
		return s.SettingInfo, true
	}
	return SettingInfo{}, false
}

func lookupSetting(key string) *setting {
	for i := range settingsTable {
		if settingsTable[i].Key == key {
			return &settingsTable[i]
		}
	}
	return nil
}

// ParseSettings returns base with the settings of spec applied: comma-
// separated key=value pairs, keys as SettingsTable lists them (and
// PresetKey), as ParseEstimator reads its settings. A key given twice, an
// unknown key, a value out of its type's range or 0 for a key whose zero
// stands for its default (SettingInfo.ZeroIsDefault: epochs=0 is not "no
// epochs") is an error wrapping ErrBadSetting that names the key; a key
// left out keeps base's value. Ranges beyond the type's (an
// InnerIters large enough to exhaust memory) are New's to check, as for
// any Settings. The Estimator and Recorder of base are kept.
func ParseSettings(spec string, base Settings) (Settings, error) {
	pairs, err := keyval.Split(spec)
	if err != nil {
		return base, fmt.Errorf("%w: settings %q: %w", ErrBadSetting, spec, err)
	}
	if k, dup := keyval.Dup(pairs); dup {
		return base, fmt.Errorf("%w: settings %q: %s given twice", ErrBadSetting, spec, k)
	}
	s := base
	for _, p := range pairs {
		if p.Key != PresetKey {
			continue
		}
		if s.ApplyPreset(p.Value) != nil {
			return base, fmt.Errorf("%w: settings %q: preset=%q: want %s", ErrBadSetting, spec, p.Value, PresetNames())
		}
	}
	for _, p := range pairs {
		if p.Key == PresetKey {
			continue
		}
		e := lookupSetting(p.Key)
		if e == nil {
			return base, fmt.Errorf("%w: settings %q: unknown setting %q (want one of %s)", ErrBadSetting, spec, p.Key, settingKeys())
		}
		left, isDefault := e.Default, e.zero(&s) // what leaving the key out gives
		if !isDefault {
			left = e.format(&s)
		}
		if err := e.set(&s, p.Value); err != nil {
			return base, &SettingError{Spec: spec, Key: p.Key, Value: p.Value, Want: err.Error()}
		}
		if e.ZeroIsDefault && e.zero(&s) {
			return base, &SettingError{Spec: spec, Key: p.Key, Value: p.Value, Zero: left, Default: isDefault}
		}
	}
	return s, nil
}

// SettingError is the error of one key of a settings spec
// (ParseSettings) or an estimator spec (ParseEstimator): it carries the
// key, so that each front end names it its own way (the command line's
// -eta-x or -cg-tol, the C ABI's eta_x). It wraps ErrBadSetting.
type SettingError struct {
	// Spec is the spec the key was given in: "epochs=0", "cg:maxiter=0".
	Spec string
	// Estimator is the estimator whose option Key is ("cg"), or "" for a
	// key of ParseSettings.
	Estimator string
	// Key and Value are the key, lower-case, and the value given.
	Key, Value string
	// Want, for a value that does not parse or is out of the key's
	// range, says what it should have been: "a finite number ≥ 0".
	Want string
	// Zero, for a 0 given for a key whose zero stands for a default
	// (SettingInfo.ZeroIsDefault), is what leaving the key out gives: the
	// base's value, or, when Default, the table's default in words.
	Zero    string
	Default bool
	// Hint, when not empty, says how to get what a 0 might have meant.
	Hint string
}

// Error says what is wrong, in the spec's own terms.
func (e *SettingError) Error() string {
	what := "settings"
	if e.Estimator != "" {
		what = "estimator"
	}
	return fmt.Sprintf("%v: %s %q: %s", ErrBadSetting, what, e.Spec, e.Problem())
}

// Problem says what is wrong with the key's value, without the spec:
// `tol="x" is not a number`, or that 0 would mean the default.
func (e *SettingError) Problem() string {
	if e.Want != "" {
		return fmt.Sprintf("%s=%q is not %s", e.Key, e.Value, e.Want)
	}
	msg := fmt.Sprintf("%s=%s would mean the default, not 0; leave %s out for the default (%s)", e.Key, e.Value, e.Key, e.Zero)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns ErrBadSetting.
func (e *SettingError) Unwrap() error { return ErrBadSetting }

// settingKeys lists the keys for an error message.
func settingKeys() string {
	keys := []string{PresetKey}
	for _, s := range settingsTable {
		keys = append(keys, s.Key)
	}
	return strings.Join(keys, ", ")
}

// maxInt bounds int settings (2⁴⁰, as the C ABI always has): larger
// counts are typos, not budgets.
const maxInt = 1 << 40

// errWant is a value's error: what the value should have been.
type errWant string

func (e errWant) Error() string { return string(e) }

// set parses v into the entry's field of s.
func (e *setting) set(s *Settings, v string) error {
	switch dst := e.ptr(s).(type) {
	case *float64:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return errWant("a finite number ≥ 0")
		}
		*dst = x
	case *int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > maxInt {
			return errWant(fmt.Sprintf("an integer in [0, %d]", int64(maxInt)))
		}
		*dst = int(n)
	case *uint64:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return errWant("an unsigned integer")
		}
		*dst = n
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errWant("true or false")
		}
		*dst = b
	case *time.Duration:
		d, ok := parseSeconds(v)
		if !ok {
			return errWant("a finite number of seconds ≥ 0 or a duration such as 1m30s")
		}
		*dst = d
	default:
		panic(fmt.Sprintf("solver: setting %s has type %T", e.Key, dst))
	}
	return nil
}

// zero reports whether the entry's field of s is its type's zero value.
func (e *setting) zero(s *Settings) bool {
	switch v := e.ptr(s).(type) {
	case *float64:
		return *v == 0
	case *int:
		return *v == 0
	case *uint64:
		return *v == 0
	case *bool:
		return !*v
	case *time.Duration:
		return *v == 0
	}
	panic(fmt.Sprintf("solver: setting %s has type %T", e.Key, e.ptr(s)))
}

// format writes the entry's field of s as set reads it back.
func (e *setting) format(s *Settings) string {
	switch v := e.ptr(s).(type) {
	case *float64:
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *int:
		return strconv.Itoa(*v)
	case *uint64:
		return strconv.FormatUint(*v, 10)
	case *bool:
		return strconv.FormatBool(*v)
	case *time.Duration:
		return formatSeconds(*v)
	}
	panic(fmt.Sprintf("solver: setting %s has type %T", e.Key, e.ptr(s)))
}

// formatSeconds writes d in seconds, exactly ("2.5", "0.000000001").
func formatSeconds(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d // only for String on an invalid value; Parse refuses it
	}
	sec, ns := int64(d/time.Second), int64(d%time.Second)
	if ns == 0 {
		return sign + strconv.FormatInt(sec, 10)
	}
	frac := strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
	return sign + strconv.FormatInt(sec, 10) + "." + frac
}

// parseSeconds reads a number of seconds (exactly, for up to nine
// decimals) or a Go duration.
func parseSeconds(v string) (time.Duration, bool) {
	if d, err := time.ParseDuration(v); err == nil && strings.ContainsAny(v, "hmsuµn") {
		return d, d >= 0
	}
	whole, frac, _ := strings.Cut(v, ".")
	if whole != "" && len(frac) <= 9 && digits(whole) && (frac == "" || digits(frac)) {
		sec, err := strconv.ParseInt(whole, 10, 64)
		if err == nil && sec <= math.MaxInt64/int64(time.Second)-1 {
			ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
			return time.Duration(sec)*time.Second + time.Duration(ns), true
		}
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0) || x*float64(time.Second) >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(math.Round(x * float64(time.Second))), true
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// String writes the settable fields of s (the keys of SettingsTable, in
// its order) as the spec ParseSettings reads back: ParseSettings(
// s.String(), Settings{}) gives s again, but for Estimator and Recorder.
// A field whose zero stands for its default (SettingInfo.ZeroIsDefault)
// is left out while it is zero, as a spec must leave it out; the
// settings of WithDefaults have every key.
func (s Settings) String() string {
	pairs := make([]keyval.Pair, 0, len(settingsTable))
	for i := range settingsTable {
		e := &settingsTable[i]
		if e.ZeroIsDefault && e.zero(&s) {
			continue
		}
		pairs = append(pairs, keyval.Pair{Key: e.Key, Value: e.format(&s)})
	}
	return keyval.Join(pairs)
}
