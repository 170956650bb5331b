// Package spec is the one table of the manifolds' specs and their
// options: "spd:n=4,retr=exp", "stiefel:n=5,p=2", "euclid:r=3",
// "grassmann:n=5,p=2", "simplex:n=4" and a coupling's "maxiter=N,tol=X". The C ABI builds manifolds from specs
// through New and Coupling, String writes a manifold back as its spec,
// the command line's -retr-x/-retr-y help comes from RetractionUsage,
// and rhgd.h's and Python's docs are tested against Table. The names of
// the retractions and transports, and their defaults (the zero values),
// stay where the manifolds define them (spd.RetractionNames,
// grassmann.RetractionNames, ...); the
// table reads them there.
package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// Option describes one key of a manifold's spec.
type Option struct {
	// Key is the key: "n", "retr".
	Key string
	// Type is the value's syntax: "int" (an integer within the key's
	// range), "float" (a finite number ≥ 0) or "name" (one of Names).
	Type string
	// Names are a name's values, the first of them its default.
	Names []string
	// Default is what leaving the key out gives; "" for a key the spec
	// must have.
	Default string
	// ZeroIsDefault says that 0 stands for Default: the spec cannot give
	// 0 for the key (maxiter=0 is not "no iterations").
	ZeroIsDefault bool
	// Doc says what the key sets, in a few words.
	Doc string

	lo, hi int64 // an int's range
}

// Info describes one manifold of the specs.
type Info struct {
	// Name is the spec's name: "spd".
	Name string
	// Aliases are other names it takes: "euclidean".
	Aliases []string
	// Title names the manifold in prose: "SPD".
	Title string
	// Doc says what the manifold is, in one line.
	Doc string
	// Options are the spec's keys. A coupling has its options only (its
	// marginals are data, not a spec: Coupling).
	Options []Option
}

// maxDim bounds a spec's sizes: larger ones are typos, not manifolds.
const maxDim = 1 << 20

// MaxEntries bounds the entries of a spec's point (2 GiB of float64): a
// larger one would ask for more memory than a workstation has, and Go's
// out-of-memory failure is fatal, not an error a caller (or the C ABI)
// can recover from.
const MaxEntries = 1 << 28

// fits returns an error unless a point of the given number of entries
// (what says how they are counted) is within MaxEntries.
func (r *reader) fits(entries int64, what string) error {
	if entries > MaxEntries {
		return r.errorf("a point has %s = %d entries, more than the %d (2 GiB) a spec may ask for", what, entries, int64(MaxEntries))
	}
	return nil
}

// table is the table of the manifolds' specs.
var table = []Info{
	{Name: "spd", Title: "SPD", Doc: "n × n symmetric positive definite matrices; under the log-euclidean and bures-wasserstein metrics both retractions are the metric's exponential, and bures-wasserstein takes transport=identity only", Options: []Option{
		{Key: "n", Type: "int", Doc: "size", lo: 1, hi: maxDim},
		{Key: "retr", Type: "name", Names: spd.RetractionNames(), Default: spd.Retraction(0).String(), Doc: "retraction"},
		{Key: "transport", Type: "name", Names: spd.TransportNames(), Default: spd.TransportMethod(0).String(), Doc: "vector transport"},
		{Key: "metric", Type: "name", Names: spd.MetricNames(), Default: spd.Metric(0).String(), Doc: "Riemannian metric"},
	}},
	{Name: "stiefel", Title: "Stiefel", Doc: "St(n, p): n × p matrices with orthonormal columns, embedded metric", Options: []Option{
		{Key: "n", Type: "int", Doc: "rows", lo: 1, hi: maxDim},
		{Key: "p", Type: "int", Doc: "columns, at most n", lo: 1, hi: maxDim},
		{Key: "retr", Type: "name", Names: stiefel.RetractionNames(), Default: stiefel.Retraction(0).String(), Doc: "retraction"},
	}},
	{Name: "euclid", Aliases: []string{"euclidean"}, Title: "Euclidean", Doc: "R^(r × c)", Options: []Option{
		{Key: "r", Type: "int", Doc: "rows", lo: 1, hi: maxDim},
		{Key: "c", Type: "int", Default: "1", Doc: "columns", lo: 1, hi: maxDim},
	}},
	{Name: "grassmann", Title: "Grassmann", Doc: "Gr(n, p): p-dimensional subspaces of R^n as n × p orthonormal bases, quotient metric", Options: []Option{
		{Key: "n", Type: "int", Doc: "ambient dimension, at least 2", lo: 2, hi: maxDim},
		{Key: "p", Type: "int", Doc: "subspace dimension, below n", lo: 1, hi: maxDim},
		{Key: "retr", Type: "name", Names: grassmann.RetractionNames(), Default: grassmann.Retraction(0).String(), Doc: "retraction"},
	}},
	{Name: "simplex", Title: "Simplex", Doc: "the probability simplex: n positive entries summing to one, Fisher metric", Options: []Option{
		{Key: "n", Type: "int", Doc: "entries, at least 2", lo: 2, hi: maxDim},
	}},
	{Name: "coupling", Title: "Coupling", Doc: "m × n couplings of two marginals, Fisher metric", Options: []Option{
		{Key: "maxiter", Type: "int", Default: strconv.Itoa(coupling.DefaultSinkhornMaxIter), ZeroIsDefault: true,
			Doc: "the retraction's Sinkhorn iterations", lo: 0, hi: 1 << 30},
		{Key: "tol", Type: "float", Default: strconv.FormatFloat(coupling.DefaultSinkhornTol, 'g', -1, 64), ZeroIsDefault: true,
			Doc: "the relative L1 marginal error the retraction reaches"},
	}},
}

// Table returns the manifolds of the specs and their options.
func Table() []Info {
	out := make([]Info, len(table))
	for i, m := range table {
		out[i] = m
		out[i].Options = append([]Option(nil), m.Options...)
		for j := range out[i].Options {
			out[i].Options[j].Names = append([]string(nil), m.Options[j].Names...)
		}
	}
	return out
}

// Lookup returns the table's entry for a name or alias
// (case-insensitive).
func Lookup(name string) (Info, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, m := range Table() {
		if m.Name == name || contains(m.Aliases, name) {
			return m, true
		}
	}
	return Info{}, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ErrBadSpec signifies a spec that names no manifold of the table, or a
// key it does not have or a value out of its range (numerr.ErrInvalid).
var ErrBadSpec = numerr.New(numerr.ErrInvalid, "bad manifold spec")

// ErrMarginals signifies a spec of the coupling manifold, which its
// marginals make, not a spec (Coupling).
var ErrMarginals = numerr.New(numerr.ErrInvalid, "the coupling manifold needs its marginals")

// reader reads one spec's keys by the table, keeping the keys it used.
type reader struct {
	what, text string
	info       Info
	kv         map[string]string
	used       map[string]bool
}

func newReader(what, text, rest string, info Info) (*reader, error) {
	r := &reader{what: what, text: text, info: info, kv: map[string]string{}, used: map[string]bool{}}
	pairs, err := keyval.Split(rest)
	if err != nil {
		return nil, r.errorf("%v", err)
	}
	if k, dup := keyval.Dup(pairs); dup {
		return nil, r.errorf("%s given twice", k)
	}
	for _, p := range pairs {
		r.kv[p.Key] = p.Value
	}
	return r, nil
}

func (r *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s %q: %s", ErrBadSpec, r.what, r.text, fmt.Sprintf(format, args...))
}

// option returns the table's option k of the reader's manifold.
func (r *reader) option(k string) Option {
	for _, o := range r.info.Options {
		if o.Key == k {
			return o
		}
	}
	panic("spec: " + r.info.Name + " has no option " + k)
}

// int returns the integer of key k, within hi when given, or its
// default (0 where the option's zero stands for it).
func (r *reader) int(k string, hi int64) (int64, error) {
	o := r.option(k)
	v, ok := r.kv[k]
	if !ok {
		if o.Default == "" {
			return 0, r.errorf("%s is required", k)
		}
		if o.ZeroIsDefault {
			return 0, nil
		}
		return strconv.ParseInt(o.Default, 10, 64)
	}
	r.used[k] = true
	if hi == 0 {
		hi = o.hi
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if o.ZeroIsDefault && err == nil && n == 0 {
		return 0, r.zero(k, v, o)
	}
	if err != nil || n < o.lo || n > hi {
		return 0, r.errorf("%s=%q is not an integer in [%d, %d]", k, v, o.lo, hi)
	}
	return n, nil
}

// float returns the finite number ≥ 0 of key k, or 0 for its default.
func (r *reader) float(k string) (float64, error) {
	o := r.option(k)
	v, ok := r.kv[k]
	if !ok {
		return 0, nil
	}
	r.used[k] = true
	x, err := strconv.ParseFloat(v, 64)
	if o.ZeroIsDefault && err == nil && x == 0 {
		return 0, r.zero(k, v, o)
	}
	if err != nil || !(x >= 0) || x > 1e300 || math.IsInf(x, 0) {
		return 0, r.errorf("%s=%q is not a finite number ≥ 0", k, v)
	}
	return x, nil
}

// zero is the error of a 0 that would stand for the default (issue 27:
// an explicit 0 is never silently the default).
func (r *reader) zero(k, v string, o Option) error {
	return r.errorf("%s=%s would mean the default, not 0; leave %s out for the default (%s)", k, v, k, o.Default)
}

// name returns the value of the name key k, or its default.
func (r *reader) name(k string) string {
	if v, ok := r.kv[k]; ok {
		r.used[k] = true
		return v
	}
	return r.option(k).Default
}

// done reports a key that nothing read.
func (r *reader) done() error {
	for k := range r.kv {
		if !r.used[k] {
			return r.errorf("unknown setting %q", k)
		}
	}
	return nil
}

// New builds a manifold from its spec, a name and comma-separated keys
// ("spd:n=4,retr=exp"), as Table lists them: spd, stiefel, euclid,
// grassmann and simplex. A
// coupling's spec is ErrMarginals (Coupling makes it); any other mistake
// is an error wrapping ErrBadSpec that names the key.
func New(text string) (solver.Manifold, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(text), ":")
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: manifold %q: unknown manifold %q (want %s)", ErrBadSpec, text,
			strings.ToLower(strings.TrimSpace(name)), newNames())
	}
	if info.Name == "coupling" {
		return nil, fmt.Errorf("manifold %q: %w", text, ErrMarginals)
	}
	r, err := newReader("manifold", text, rest, info)
	if err != nil {
		return nil, err
	}
	var m solver.Manifold
	switch info.Name {
	case "spd":
		n, err := r.int("n", 0)
		if err != nil {
			return nil, err
		}
		if err := r.fits(n*n, "n·n"); err != nil {
			return nil, err
		}
		metric, err := spd.ParseMetric(r.name("metric"))
		if err != nil {
			return nil, r.errorf("metric: %v", err)
		}
		sp := spd.NewMetric(int(n), metric)
		if sp.Retraction, err = spd.ParseRetraction(r.name("retr")); err != nil {
			return nil, r.errorf("retr: %v", err)
		}
		if sp.TransportMethod, err = spd.ParseTransport(r.name("transport")); err != nil {
			return nil, r.errorf("transport: %v", err)
		}
		if metric == spd.BuresWasserstein && sp.TransportMethod == spd.Parallel {
			return nil, r.errorf("transport=parallel: the %v metric has no closed-form parallel transport (want transport=identity)", metric)
		}
		m = sp
	case "stiefel":
		n, err := r.int("n", 0)
		if err != nil {
			return nil, err
		}
		p, err := r.int("p", n)
		if err != nil {
			return nil, err
		}
		if err := r.fits(n*p, "n·p"); err != nil {
			return nil, err
		}
		st := stiefel.New(int(n), int(p))
		if st.Retraction, err = stiefel.ParseRetraction(r.name("retr")); err != nil {
			return nil, r.errorf("retr: %v", err)
		}
		m = st
	case "euclid":
		rows, err := r.int("r", 0)
		if err != nil {
			return nil, err
		}
		cols, err := r.int("c", 0)
		if err != nil {
			return nil, err
		}
		if err := r.fits(rows*cols, "r·c"); err != nil {
			return nil, err
		}
		m = euclid.New(int(rows), int(cols))
	case "grassmann":
		n, err := r.int("n", 0)
		if err != nil {
			return nil, err
		}
		p, err := r.int("p", n-1)
		if err != nil {
			return nil, err
		}
		if err := r.fits(n*p, "n·p"); err != nil {
			return nil, err
		}
		gr := grassmann.New(int(n), int(p))
		if gr.Retraction, err = grassmann.ParseRetraction(r.name("retr")); err != nil {
			return nil, r.errorf("retr: %v", err)
		}
		m = gr
	case "simplex":
		n, err := r.int("n", 0)
		if err != nil {
			return nil, err
		}
		m = simplex.New(int(n))
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return m, nil
}

// newNames lists the manifolds New builds, for an error message.
func newNames() string {
	var names []string
	for _, m := range table {
		if m.Name != "coupling" {
			names = append(names, m.Name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Coupling returns the manifold of couplings of the marginals a and b
// with the options ("maxiter=N,tol=X"; "" for the defaults) of its
// retraction's Sinkhorn balancing, and its spec
// ("coupling:m=2,n=3,tol=1e-12").
func Coupling(a, b []float64, options string) (*coupling.Coupling, string, error) {
	c, err := coupling.New(a, b)
	if err != nil {
		return nil, "", err
	}
	info, _ := Lookup("coupling")
	r, err := newReader("coupling options", options, options, info)
	if err != nil {
		return nil, "", err
	}
	it, err := r.int("maxiter", 0)
	if err != nil {
		return nil, "", err
	}
	tol, err := r.float("tol")
	if err != nil {
		return nil, "", err
	}
	if err := r.done(); err != nil {
		return nil, "", err
	}
	c.Sinkhorn.MaxIter, c.Sinkhorn.Tol = int(it), tol
	desc := fmt.Sprintf("coupling:m=%d,n=%d", len(a), len(b))
	if options != "" {
		desc += "," + options
	}
	return c, desc, nil
}

// String writes m as its spec (a product as "product(spec; spec)", a
// coupling with its sizes and options but without its marginals), for
// manifolds that no spec made (a built-in problem's).
func String(m solver.Manifold) string {
	switch m := m.(type) {
	case *spd.SPD:
		n, _ := m.Dims()
		return fmt.Sprintf("spd:n=%d,retr=%v,transport=%v,metric=%v", n, m.Retraction, m.TransportMethod, m.Metric())
	case *stiefel.Stiefel:
		n, p := m.Dims()
		return fmt.Sprintf("stiefel:n=%d,p=%d,retr=%v", n, p, m.Retraction)
	case *euclid.Euclidean:
		r, c := m.Dims()
		return fmt.Sprintf("euclid:r=%d,c=%d", r, c)
	case *grassmann.Grassmann:
		n, p := m.Dims()
		return fmt.Sprintf("grassmann:n=%d,p=%d,retr=%v", n, p, m.Retraction)
	case *simplex.Simplex:
		return fmt.Sprintf("simplex:n=%d", m.Len())
	case *coupling.Coupling:
		r, c := m.Dims()
		s := fmt.Sprintf("coupling:m=%d,n=%d", r, c)
		if m.Sinkhorn.MaxIter != 0 {
			s += fmt.Sprintf(",maxiter=%d", m.Sinkhorn.MaxIter)
		}
		if m.Sinkhorn.Tol != 0 {
			s += fmt.Sprintf(",tol=%g", m.Sinkhorn.Tol)
		}
		return s
	case *product.Product:
		specs := make([]string, m.Factors())
		for i := range specs {
			specs[i] = String(m.Factor(i))
		}
		return "product(" + strings.Join(specs, "; ") + ")"
	}
	return fmt.Sprintf("%T:len=%d", m, m.Len())
}

// Synopsis writes a manifold's spec with its keys: required ones as
// "n=N", the others in brackets, names as their alternatives
// ("spd:n=N[,retr=second-order|exp][,transport=identity|parallel][,metric=...]"); a
// coupling's options alone ("[maxiter=N][,tol=X]").
func (m Info) Synopsis() string {
	var b strings.Builder
	if m.Name != "coupling" {
		b.WriteString(m.Name + ":")
	}
	for i, o := range m.Options {
		v := "N"
		if len(o.Key) == 1 {
			v = strings.ToUpper(o.Key)
		}
		switch o.Type {
		case "name":
			v = strings.Join(o.Names, "|")
		case "float":
			v = "X"
		}
		kv := o.Key + "=" + v
		if i > 0 {
			kv = "," + kv
		}
		if o.Default != "" {
			kv = "[" + kv + "]"
		}
		b.WriteString(kv)
	}
	return b.String()
}

// Help returns the specs as a block of text: a manifold's synopsis on a
// line, then what it is and its keys' defaults, indented and wrapped at
// 75 characters. rhgd.h holds it (a test checks).
func Help() string {
	var b strings.Builder
	for _, m := range table {
		syn := m.Synopsis()
		if m.Name == "coupling" {
			syn = "coupling options: " + syn
		}
		b.WriteString(syn + "\n")
		var defs []string
		zero := false
		for _, o := range m.Options {
			if o.Default != "" {
				defs = append(defs, o.Key+"="+o.Default)
				zero = zero || o.ZeroIsDefault
			}
		}
		doc := m.Doc
		if len(defs) > 0 {
			doc += " (default"
			if len(defs) > 1 {
				doc += "s"
			}
			doc += ": " + strings.Join(defs, ", ")
			if zero {
				doc += "; never 0"
			}
			doc += ")"
		}
		line := "   "
		for _, w := range strings.Fields(doc) {
			if len([]rune(line))+1+len([]rune(w)) > 75 {
				b.WriteString(line + "\n")
				line = "   "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// RetractionUsage is the command line's help of -retr-x: the retractions
// of each manifold that has a choice, its default first.
func RetractionUsage() string {
	var parts []string
	for _, m := range table {
		for _, o := range m.Options {
			if o.Key == "retr" {
				parts = append(parts, strings.Join(o.Names, "|")+" ("+m.Title+")")
			}
		}
	}
	return strings.Join(parts, ", ")
}
