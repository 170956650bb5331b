package numerr

import (
	"fmt"
	"strings"
)

// Kind is the kind of a Term: what sort of name it is, which decides how
// each front end spells it.
type Kind string

// The kinds of names that messages hold.
const (
	// KindSetting is a solver setting; Key is its settings key ("eta_x",
	// solver.SettingsTable), Go its field ("Settings.EtaX").
	KindSetting Kind = "setting"
	// KindPreset is a preset of settings; Key is its name ("paper",
	// "adaptive", "adarhd": solver.Presets).
	KindPreset Kind = "preset"
	// KindOracle is a problem's oracle or fused lower loop; Key is its C
	// and Python name ("grad_gy", "lower_steps"), Go its field ("GradGy").
	KindOracle Kind = "oracle"
	// KindParam is a ready-made problem's parameter; Key is its C and
	// Python name ("start_seed", or "data"), Go its flag ("-start-seed").
	KindParam Kind = "param"
	// KindProblem is a ready-made problem that a message points to; Key is
	// its name ("minmax").
	KindProblem Kind = "problem"
	// KindFunction, KindConstant, KindArgument and KindNull are the C
	// ABI's own words: a function ("rhgd_solver_run"), a constant
	// ("RHGD_EUCLIDEAN"), an argument ("every") and NULL; Key and Go are
	// the C spelling, which its bindings spell their own way.
	KindFunction Kind = "function"
	KindConstant Kind = "constant"
	KindArgument Kind = "argument"
	KindNull     Kind = "null"
	// KindCallback is the failure of a caller's callback; Key is its
	// oracle's C name, Go the C ABI's words ("callback failed: grad_gy
	// returned 1").
	KindCallback Kind = "callback"
)

// Term is a name of rhgd's vocabulary in a message: a setting, an
// oracle, a problem's parameter, a word of the C ABI. Kind and Key say
// which it is in every front end; Go is how Go's API spells it, which a
// message's Error text holds. A front end spells it its own way by
// Render (the command line's -eta-x, the C ABI's eta_x), so that no
// message is ever translated after the fact.
type Term struct {
	Kind Kind
	Key  string
	Go   string
}

// String returns the Go spelling.
func (t Term) String() string { return t.Go }

// Render returns the term as sp spells it.
func (t Term) Render(sp Speller) string { return sp(t) }

// Speller spells a term in a front end's terms.
type Speller func(Term) string

// Renderable is a value of a message that a Speller can spell: a Term, a
// value made of terms (solver.Oracle, solver.Oracles) or an error built
// by Errorf.
type Renderable interface {
	Render(Speller) string
}

// msg is an error of Errorf: its Go text and what it was made from.
type msg struct {
	err    error // fmt.Errorf's, for Error and Unwrap
	format string
	args   []any
}

// Errorf is fmt.Errorf for a message that names terms: its arguments may
// be Terms and other Renderable values (a %v of one is its Go spelling
// in Error), and errors, wrapped by %w as fmt.Errorf wraps them. Render
// spells the terms, in it and in the errors it wraps, in a front end's
// terms.
func Errorf(format string, args ...any) error {
	return &msg{err: fmt.Errorf(format, args...), format: format, args: args}
}

func (m *msg) Error() string { return m.err.Error() }

// Unwrap returns the errors that format's %w verbs wrap.
func (m *msg) Unwrap() []error {
	switch u := m.err.(type) {
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// Render writes the message with its terms, and those of the errors it
// holds, as sp spells them.
func (m *msg) Render(sp Speller) string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case Renderable:
			args[i] = a.Render(sp)
		case error:
			args[i] = Render(a, sp)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(strings.ReplaceAll(m.format, "%w", "%v"), args...)
}

// Render returns err's message with the terms it names spelled by sp:
// those of the errors Errorf made, wherever they sit in err's chain (a
// fmt.Errorf wrapper's message holds theirs as it is, which Render
// replaces by their spelling). A message without terms is err.Error().
func Render(err error, sp Speller) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(Renderable); ok {
		return r.Render(sp)
	}
	text := err.Error()
	var inner []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		inner = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	for _, e := range inner {
		if e == nil {
			continue
		}
		if was, now := e.Error(), Render(e, sp); now != was {
			text = strings.Replace(text, was, now, 1)
		}
	}
	return text
}
