package solver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/internal/keyval"
)

// The defaults that the estimators' zero fields stand for, as the table
// of their options (EstimatorTable) states them.
const (
	DefaultCGMaxIter    = 50    // CG.MaxIter
	DefaultCGTol        = 1e-10 // CG.Tol
	DefaultNeumannTerms = 50    // Neumann.Terms
	DefaultNeumannPower = 10    // Neumann.PowerIters
	DefaultFOLambda     = 10    // FirstOrder.Lambda
	DefaultFOGrowth     = 10    // FirstOrder.Growth, where the schedule is fixed
)

// EstimatorOption describes one option of an estimator spec,
// name:key=value: the one table of options that ParseEstimator reads and
// that the CLI's flags, rhgd.h's and Python's documentation and the
// CLI's -estimator help come from (or are tested against), as
// SettingInfo is for the solver's settings.
type EstimatorOption struct {
	// Key is the option as a spec spells it: "maxiter". The CLI's flag is
	// the estimator's name and the key: -cg-maxiter.
	Key string
	// Field is the estimator's field it sets: "MaxIter".
	Field string
	// Type is the value's syntax: "int" (an integer), "float" (a
	// number), "bool" (true or false) or "damping" (a number, or auto);
	// ranges are Bind's to check, as for a struct literal.
	Type string
	// Default is what leaving the key out gives, in words.
	Default string
	// ZeroIsDefault says that the field's zero value stands for Default:
	// a spec cannot give 0 for the key (cg:maxiter=0 is not "no
	// iterations"), and ParseEstimator's error says to leave it out.
	// Keys whose zero means zero (damping=0: none, ztol=0: off) do not
	// have it.
	ZeroIsDefault bool
	// Hint, when not empty, follows the error of a 0: how to get what 0
	// might have meant.
	Hint string
	// Negative says that a negative value has its own meaning (Doc says
	// which). Without it a negative value for a ZeroIsDefault key is an
	// error of the spec's own ("a positive integer"), where Bind's would
	// speak of the Go field, whose 0 is the default.
	Negative bool
	// Doc says what the option does, in one line.
	Doc string
}

// EstimatorInfo describes one estimator that ParseEstimator knows.
type EstimatorInfo struct {
	// Name is the spec's name: "cg".
	Name string
	// Aliases are other names ParseEstimator takes for it: "neumann".
	Aliases []string
	// Paper says the estimator is one of the paper's (EstimatorNames):
	// rhgd compare runs the others only when asked.
	Paper bool
	// Doc says what the estimator does, in one line.
	Doc string
	// Options are its options, in the order its String writes them.
	Options []EstimatorOption
}

// estimatorEntry is an EstimatorInfo with its constructor and fields.
type estimatorEntry struct {
	info EstimatorInfo
	new  func() Estimator
	ptrs []func(Estimator) any // per option: *int, *float64, *bool or damping
	// value, when set, turns the parsed estimator (new's, a pointer
	// for ptrs) into the one ParseEstimator returns: HInv is a value.
	value func(Estimator) Estimator
}

// damping is the pair of fields that damping=X|auto sets.
type damping struct {
	delta *float64
	auto  *bool
}

// estimatorTable is the table of the estimators and their options, in
// the order of EstimatorNames, then the others.
var estimatorTable = []estimatorEntry{
	{info: EstimatorInfo{Name: "hinv", Paper: true, Doc: "the exact inverse Hessian: the problem's hess_gy_inv, or, without it, derived from hess_gy when the lower dimension D ≤ maxdim (D products and a Cholesky factor per point)", Options: []EstimatorOption{
		{Key: "maxdim", Field: "MaxDim", Type: "int", Default: strconv.Itoa(DefaultHInvMaxDim), ZeroIsDefault: true,
			Hint: "cg is the estimator for a problem without hess_gy_inv above maxdim",
			Doc:  "the largest lower dimension at which hess_gy_inv is derived"},
	}}, new: func() Estimator { return &HInv{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*HInv).MaxDim },
	}, value: func(e Estimator) Estimator { return *e.(*HInv) }},
	{info: EstimatorInfo{Name: "cg", Paper: true, Doc: "conjugate gradients on H v = grad_y f", Options: []EstimatorOption{
		{Key: "maxiter", Field: "MaxIter", Type: "int", Default: strconv.Itoa(DefaultCGMaxIter), ZeroIsDefault: true,
			Doc: "iteration cap"},
		{Key: "tol", Field: "Tol", Type: "float", Default: strconv.FormatFloat(DefaultCGTol, 'g', -1, 64), ZeroIsDefault: true,
			Doc: "stop once ‖b − H v‖ ≤ tol·‖b‖"},
		{Key: "warm", Field: "WarmStart", Type: "bool", Default: "false",
			Doc: "start from the last epoch's solution"},
		{Key: "damping", Field: "Damping", Type: "damping", Default: "0: none",
			Doc: "solve (H + δI) v = b: δ = X, or auto: from a Lanczos estimate of H's spectrum"},
	}}, new: func() Estimator { return &CG{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*CG).MaxIter },
		func(e Estimator) any { return &e.(*CG).Tol },
		func(e Estimator) any { return &e.(*CG).WarmStart },
		func(e Estimator) any { c := e.(*CG); return damping{&c.Damping, &c.AutoDamping} },
	}},
	{info: EstimatorInfo{Name: "ns", Aliases: []string{"neumann"}, Paper: true, Doc: "truncated Neumann series γ Σ_{i<T} (I − γH)^i", Options: []EstimatorOption{
		{Key: "gamma", Field: "Gamma", Type: "float", Default: "1/λ̂_max by power iteration", ZeroIsDefault: true,
			Doc: "step γ"},
		{Key: "terms", Field: "Terms", Type: "int", Default: strconv.Itoa(DefaultNeumannTerms), ZeroIsDefault: true,
			Doc: "terms T"},
		{Key: "power", Field: "PowerIters", Type: "int", Default: strconv.Itoa(DefaultNeumannPower), ZeroIsDefault: true, Negative: true,
			Hint: "a negative power skips the λ_max check, which needs gamma",
			Doc:  "power iterations estimating λ_max to check γ; negative: no check"},
		{Key: "damping", Field: "Damping", Type: "damping", Default: "0: none",
			Doc: "the series of (H + δI)⁻¹: δ = X, or auto, as cg's"},
	}}, new: func() Estimator { return &Neumann{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*Neumann).Gamma },
		func(e Estimator) any { return &e.(*Neumann).Terms },
		func(e Estimator) any { return &e.(*Neumann).PowerIters },
		func(e Estimator) any { n := e.(*Neumann); return damping{&n.Damping, &n.AutoDamping} },
	}},
	{info: EstimatorInfo{Name: "ad", Paper: true, Doc: "reverse-mode differentiation through the lower steps"},
		new: func() Estimator { return AD{} }},
	{info: EstimatorInfo{Name: "gda", Paper: true, Doc: "gradient descent–ascent, for min-max problems"},
		new: func() Estimator { return GDA{} }},
	{info: EstimatorInfo{Name: "fo", Aliases: []string{"firstorder"}, Doc: "first-order penalty method (F²SA), gradients only", Options: []EstimatorOption{
		{Key: "lambda", Field: "Lambda", Type: "float", Default: strconv.Itoa(DefaultFOLambda), ZeroIsDefault: true,
			Doc: "the penalty's first λ"},
		{Key: "growth", Field: "Growth", Type: "float", Default: "λ adapts to the bias estimate; " + strconv.Itoa(DefaultFOGrowth) + " with power or minibatches",
			ZeroIsDefault: true, Negative: true, Hint: "a negative growth keeps λ fixed",
			Doc: "λ_k = lambda + growth·k^power; negative: λ fixed"},
		{Key: "power", Field: "Power", Type: "float", Default: "λ adapts to the bias estimate; 1/3 with growth, 1/7 with minibatches",
			ZeroIsDefault: true, Doc: "the schedule's exponent"},
		{Key: "zsteps", Field: "ZSteps", Type: "int", Default: "the solver's inner", ZeroIsDefault: true,
			Doc: "z steps per estimate"},
		{Key: "eta", Field: "EtaZ", Type: "float", Default: "the solver's eta_y", ZeroIsDefault: true,
			Doc: "z step size"},
		{Key: "ztol", Field: "ZTol", Type: "float", Default: "0: off",
			Doc: "end the z steps at ‖z gradient‖ ≤ ztol·‖ĝ‖/λ"},
	}}, new: func() Estimator { return &FirstOrder{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*FirstOrder).Lambda },
		func(e Estimator) any { return &e.(*FirstOrder).Growth },
		func(e Estimator) any { return &e.(*FirstOrder).Power },
		func(e Estimator) any { return &e.(*FirstOrder).ZSteps },
		func(e Estimator) any { return &e.(*FirstOrder).EtaZ },
		func(e Estimator) any { return &e.(*FirstOrder).ZTol },
	}},
	{info: EstimatorInfo{Name: "saba", Aliases: []string{"vr"}, Doc: "SABA: variance-reduced joint steps on y, v and x, SAGA memories transported on the manifolds (for minibatches; inner=1)", Options: []EstimatorOption{
		{Key: "eta", Field: "EtaV", Type: "float", Default: "the solver's eta_y", ZeroIsDefault: true,
			Doc: "v's constant step"},
		{Key: "shuffle", Field: "Shuffle", Type: "bool", Default: "false: each block with probability its share",
			Doc: "draw the memory blocks in a random order per pass"},
	}}, new: func() Estimator { return &SABA{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*SABA).EtaV },
		func(e Estimator) any { return &e.(*SABA).Shuffle },
	}},
	{info: EstimatorInfo{Name: "adagd", Doc: "AdaRHD's gradient descent on H v = grad_y f with AdaGrad-norm steps", Options: []EstimatorOption{
		{Key: "maxiter", Field: "MaxIter", Type: "int", Default: strconv.Itoa(DefaultAdaGDMaxIter), ZeroIsDefault: true,
			Doc: "first iteration cap, 50 more every five estimates up to 500"},
		{Key: "tol", Field: "Tol", Type: "float", Default: strconv.FormatFloat(DefaultAdaGDTol, 'g', -1, 64), ZeroIsDefault: true,
			Doc: "stop once ‖H v − b‖² < tol"},
		{Key: "gamma", Field: "Gamma", Type: "float", Default: "1/eta_y", ZeroIsDefault: true,
			Doc: "the first AdaGrad accumulator γ₀ (steps 1/γ)"},
	}}, new: func() Estimator { return &AdaGD{} }, ptrs: []func(Estimator) any{
		func(e Estimator) any { return &e.(*AdaGD).MaxIter },
		func(e Estimator) any { return &e.(*AdaGD).Tol },
		func(e Estimator) any { return &e.(*AdaGD).Gamma },
	}},
}

// EstimatorTable returns the estimators ParseEstimator knows, with their
// options: the paper's in EstimatorNames' order, then the others.
func EstimatorTable() []EstimatorInfo {
	out := make([]EstimatorInfo, len(estimatorTable))
	for i, e := range estimatorTable {
		out[i] = e.info
		out[i].Aliases = append([]string(nil), e.info.Aliases...)
		out[i].Options = append([]EstimatorOption(nil), e.info.Options...)
	}
	return out
}

// LookupEstimator returns the table's entry for an estimator's name or
// alias (case-insensitive).
func LookupEstimator(name string) (EstimatorInfo, bool) {
	if e := lookupEstimator(name); e != nil {
		for _, i := range EstimatorTable() {
			if i.Name == e.info.Name {
				return i, true
			}
		}
	}
	return EstimatorInfo{}, false
}

func lookupEstimator(name string) *estimatorEntry {
	name = strings.ToLower(strings.TrimSpace(name))
	for i := range estimatorTable {
		e := &estimatorTable[i]
		if e.info.Name == name || contains(e.info.Aliases, name) {
			return e
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// EstimatorNames lists the paper's estimators' names, in the paper's
// order, and GDA's; ParseEstimator also knows the others of
// EstimatorTable ("fo").
func EstimatorNames() []string {
	var out []string
	for _, e := range estimatorTable {
		if e.info.Paper {
			out = append(out, e.info.Name)
		}
	}
	return out
}

// allEstimatorNames lists every name of the table, for an error message.
func allEstimatorNames() []string {
	out := make([]string, len(estimatorTable))
	for i, e := range estimatorTable {
		out[i] = e.info.Name
	}
	return out
}

// ParseEstimator returns the estimator a spec names: a name, optionally
// followed by a colon and comma-separated key=value options, as
// EstimatorTable lists them (EstimatorHelp shows them); each estimator's
// String gives its spec back. A key given twice is an error, and so is 0
// for a key whose zero stands for its default (cg:maxiter=0 is not "no
// iterations"; EstimatorOption.ZeroIsDefault): leave such a key out for
// its default. damping=0 and ztol=0 mean none and off. Every error wraps
// ErrBadSetting.
func ParseEstimator(spec string) (Estimator, error) {
	name, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
	pairs, err := keyval.Split(params)
	if err != nil {
		return nil, fmt.Errorf("%w: estimator %q: setting %w", ErrBadSetting, spec, err)
	}
	if k, dup := keyval.Dup(pairs); dup {
		return nil, fmt.Errorf("%w: estimator %q: %s given twice", ErrBadSetting, spec, k)
	}
	ent := lookupEstimator(name)
	if ent == nil {
		return nil, fmt.Errorf("%w: unknown estimator %q (want one of %v)", ErrBadSetting, name, allEstimatorNames())
	}
	kv := make(map[string]string, len(pairs))
	for _, p := range pairs {
		kv[p.Key] = p.Value
	}
	e := ent.new()
	for i, o := range ent.info.Options {
		v, ok := kv[o.Key]
		if !ok {
			continue
		}
		delete(kv, o.Key)
		if want, zero := o.set(ent.ptrs[i](e), v); want != "" || zero {
			err := &SettingError{Spec: spec, Estimator: ent.info.Name, Key: o.Key, Value: v, Want: want}
			if zero {
				err.Zero, err.Default, err.Hint = o.Default, true, o.Hint
			}
			return nil, err
		}
	}
	if len(kv) > 0 {
		var unknown, keys []string
		for k := range kv {
			unknown = append(unknown, k)
		}
		sort.Strings(unknown)
		for _, o := range ent.info.Options {
			keys = append(keys, o.Key)
		}
		want := "it takes none"
		if len(keys) > 0 {
			want = "want " + strings.Join(keys, ", ")
		}
		return nil, fmt.Errorf("%w: estimator %q: unknown settings %v (%s)", ErrBadSetting, spec, unknown, want)
	}
	if ent.value != nil {
		e = ent.value(e)
	}
	return e, nil
}

// set parses v into the option's field dst. It returns what v should
// have been when it does not parse, and whether v is a 0 that would stand
// for the option's default.
func (o *EstimatorOption) set(dst any, v string) (want string, zero bool) {
	switch dst := dst.(type) {
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return "an integer", false
		}
		if n < 0 && o.ZeroIsDefault && !o.Negative {
			return "a positive integer", false
		}
		*dst, zero = n, n == 0
	case *float64:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "a number", false
		}
		if x < 0 && o.ZeroIsDefault && !o.Negative {
			return "a positive number", false
		}
		*dst, zero = x, x == 0
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "true or false", false
		}
		*dst = b
	case damping:
		if strings.EqualFold(v, "auto") {
			*dst.auto = true
			return "", false
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "a number", false
		}
		*dst.delta = x
	default:
		panic(fmt.Sprintf("solver: estimator option %s has type %T", o.Key, dst))
	}
	return "", zero && o.ZeroIsDefault
}

// Placeholder returns the option's value in a synopsis: N, X, B or
// X|auto.
func (o EstimatorOption) Placeholder() string {
	switch o.Type {
	case "int":
		return "N"
	case "bool":
		return "B"
	case "damping":
		return "X|auto"
	}
	return "X"
}

// EstimatorHelp returns the estimators and their options as a block of
// text, one estimator or option a line (a line longer than 75
// characters wraps, indented):
// the CLI's -estimator help prints it, and rhgd.h and the Python
// package's docs hold it (their tests check).
func EstimatorHelp() string {
	const col, width = 18, 75
	var b strings.Builder
	line := func(head, doc string) {
		pad := col - len([]rune(head))
		if pad < 1 {
			b.WriteString(head + "\n")
			pad, head = col, ""
		}
		words := strings.Fields(doc)
		cur := head + strings.Repeat(" ", pad)
		n := len([]rune(cur))
		for i, w := range words {
			if i > 0 && n+1+len([]rune(w)) > width {
				b.WriteString(cur + "\n")
				cur, n = strings.Repeat(" ", col), col
			} else if i > 0 {
				cur += " "
				n++
			}
			cur += w
			n += len([]rune(w))
		}
		b.WriteString(cur + "\n")
	}
	for _, e := range estimatorTable {
		head := e.info.Name
		if len(e.info.Aliases) > 0 {
			head += " (" + strings.Join(e.info.Aliases, ", ") + ")"
		}
		doc := e.info.Doc
		if !e.info.Paper {
			doc += " (not the paper's)"
		}
		line(head, doc)
		for _, o := range e.info.Options {
			def := "default " + o.Default
			if o.ZeroIsDefault {
				def += "; never 0"
			}
			line("  "+o.Key+"="+o.Placeholder(), o.Doc+" ("+def+")")
		}
	}
	return b.String()
}
