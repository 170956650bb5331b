// Package keyval is rhgd's one tokenizer of "key=value,key=value" text:
// the settings of solver.ParseSettings and solver.ParseEstimator, the C
// ABI's manifold and solver specs and the CLI's estimator flags all split
// through Split, so that they agree on spaces, case and what is an error.
package keyval

import (
	"fmt"
	"strings"
)

// Pair is one key=value setting: the key trimmed and lower-cased, the
// value trimmed.
type Pair struct{ Key, Value string }

// Split splits text at commas into key=value pairs, in order; blank text
// has none. A piece without "=" or with an empty key is an error quoting
// the piece. Duplicate keys are kept: Dup finds them for callers that
// refuse them.
func Split(text string) ([]Pair, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var out []Pair
	for _, f := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(f, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", f)
		}
		out = append(out, Pair{Key: k, Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// Dup returns the first key given twice in pairs, if any.
func Dup(pairs []Pair) (string, bool) {
	seen := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		if seen[p.Key] {
			return p.Key, true
		}
		seen[p.Key] = true
	}
	return "", false
}

// Join writes pairs back as "k=v,k=v", the form Split reads.
func Join(pairs []Pair) string {
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.String()
}
