package manifold

// CheckLen panics with msg unless every slice of v has length n: the
// shape check every method of a manifold starts with, a programmer's
// error (see the architecture's Errors section), not a data error. It
// allocates nothing.
func CheckLen(msg string, n int, v ...[]float64) {
	for _, x := range v {
		if len(x) != n {
			panic(msg)
		}
	}
}
