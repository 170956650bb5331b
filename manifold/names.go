package manifold

import (
	"fmt"
	"strings"
)

// EnumName returns names[v], or "typ(v)" for a v the table lacks: the
// String of an enum (a retraction, a transport) whose values index a
// table of names, the names its Parse function reads.
func EnumName(names []string, typ string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// ParseName returns the index in names of name, read case-insensitively
// and without surrounding space, or the value aliases gives it; otherwise
// an error "<what> "name" (want a, b or c)" that lists the names.
func ParseName(what, name string, names []string, aliases map[string]int) (int, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if v, ok := aliases[n]; ok {
		return v, nil
	}
	for v, s := range names {
		if s == n {
			return v, nil
		}
	}
	want := names[len(names)-1]
	if len(names) > 1 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + want
	}
	return 0, fmt.Errorf("%s %q (want %s)", what, name, want)
}
