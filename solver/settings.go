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
	// finite number of seconds ≥ 0, or a Go duration such as 1m30s).
	Type string
	// Default is the value a zero field stands for, in words.
	Default string
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
	{SettingInfo{"eta_x", "EtaX", "float", "0.1", "upper step size η_x"}, func(s *Settings) any { return &s.EtaX }},
	{SettingInfo{"eta_y", "EtaY", "float", "0.1", "lower step size η_y"}, func(s *Settings) any { return &s.EtaY }},
	{SettingInfo{"inner", "InnerIters", "int", "20", "lower steps per epoch, S"}, func(s *Settings) any { return &s.InnerIters }},
	{SettingInfo{"epochs", "Epochs", "int", "200", "epoch limit, K"}, func(s *Settings) any { return &s.Epochs }},
	{SettingInfo{"grad_tol", "GradTol", "float", "0: off", "stop once ‖hypergradient‖ ≤ grad_tol"}, func(s *Settings) any { return &s.GradTol }},
	{SettingInfo{"rel_grad_tol", "RelGradTol", "float", "0: off", "stop once ‖hypergradient‖ ≤ rel_grad_tol times its first value"}, func(s *Settings) any { return &s.RelGradTol }},
	{SettingInfo{"runtime", "Runtime", "seconds", "0: off", "time limit"}, func(s *Settings) any { return &s.Runtime }},
	{SettingInfo{"diverge", "DivergeFactor", "float", "1e8", "divergence factor"}, func(s *Settings) any { return &s.DivergeFactor }},
	{SettingInfo{"fd_step", "FDStep", "float", "ε^(1/3)", "relative finite-difference step"}, func(s *Settings) any { return &s.FDStep }},
	{SettingInfo{"seed", "Seed", "uint64", "0", "seed of the estimators' and batches' randomness"}, func(s *Settings) any { return &s.Seed }},
	{SettingInfo{"batch_lower", "Batches.Lower", "int", "0: whole sum", "RSHGD's lower-gradient minibatch |B1|"}, func(s *Settings) any { return &s.Batches.Lower }},
	{SettingInfo{"batch_upper", "Batches.Upper", "int", "0: whole sum", "RSHGD's upper-gradient minibatch |B2|"}, func(s *Settings) any { return &s.Batches.Upper }},
	{SettingInfo{"batch_cross", "Batches.Cross", "int", "0: whole sum", "RSHGD's cross-derivative minibatch |B3|"}, func(s *Settings) any { return &s.Batches.Cross }},
	{SettingInfo{"batch_hess", "Batches.Hess", "int", "0: whole sum", "RSHGD's Hessian minibatch |B4|"}, func(s *Settings) any { return &s.Batches.Hess }},
	{SettingInfo{"batch_report", "Batches.Report", "int", "0: whole sum", "components of f in each epoch's reported value"}, func(s *Settings) any { return &s.Batches.Report }},
	{SettingInfo{"lower_solve", "Lower.UseLowerSolve", "bool", "false", "the problem's exact lower solution instead of lower steps"}, func(s *Settings) any { return &s.Lower.UseLowerSolve }},
	{SettingInfo{"lower_tol", "Lower.Tol", "float", "0: off", "end the lower loop once ‖grad_y g‖ ≤ lower_tol·‖last hypergradient‖"}, func(s *Settings) any { return &s.Lower.Tol }},
	{SettingInfo{"lower_maxiter", "Lower.MaxIters", "int", "10·inner", "cap of an adaptive lower loop"}, func(s *Settings) any { return &s.Lower.MaxIters }},
	{SettingInfo{"lower_err_bound", "Lower.ErrBound", "bool", "false", "lower_tol bounds the error bound's lower-level term, not ‖grad_y g‖"}, func(s *Settings) any { return &s.Lower.ErrBound }},
	{SettingInfo{"lower_bb", "Lower.BB", "bool", "false", "Barzilai–Borwein lower steps with a nonmonotone line search"}, func(s *Settings) any { return &s.Lower.BB }},
	{SettingInfo{"upper_bb", "Upper.BB", "bool", "false", "safeguarded Barzilai–Borwein upper steps"}, func(s *Settings) any { return &s.Upper.BB }},
	{SettingInfo{"upper_min_step", "Upper.MinStep", "float", "eta_x/1000", "least BB upper step"}, func(s *Settings) any { return &s.Upper.MinStep }},
	{SettingInfo{"upper_max_step", "Upper.MaxStep", "float", "1000·eta_x", "greatest BB upper step"}, func(s *Settings) any { return &s.Upper.MaxStep }},
	{SettingInfo{"lanczos", "Lanczos", "int", "0: off (CG estimates its own)", "Lanczos steps estimating the lower Hessian's extreme eigenvalues each epoch"}, func(s *Settings) any { return &s.Lanczos }},
}

// PresetKey is the key of ParseSettings that is no field: preset=paper
// keeps the base's rules, preset=adaptive applies ApplyAdaptive to it
// before the other keys, wherever it stands in the spec.
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
// unknown key or a value out of its type's range is an error wrapping
// ErrBadSetting that names the key. Ranges beyond the type's (an
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
		switch p.Value {
		case "paper":
		case "adaptive":
			s.ApplyAdaptive()
		default:
			return base, fmt.Errorf("%w: settings %q: preset=%q: want paper or adaptive", ErrBadSetting, spec, p.Value)
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
		if err := e.set(&s, p.Value); err != nil {
			return base, fmt.Errorf("%w: settings %q: %s=%q is not %s", ErrBadSetting, spec, p.Key, p.Value, err)
		}
	}
	return s, nil
}

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

// String writes the settable fields of s (every key of SettingsTable, in
// its order) as the spec ParseSettings reads back: ParseSettings(
// s.String(), Settings{}) gives s again, but for Estimator and Recorder.
func (s Settings) String() string {
	pairs := make([]keyval.Pair, len(settingsTable))
	for i := range settingsTable {
		pairs[i] = keyval.Pair{Key: settingsTable[i].Key, Value: settingsTable[i].format(&s)}
	}
	return keyval.Join(pairs)
}
