package solver

// SetNoWhiten turns CG's and Neumann's whitened inner products off (on)
// for estimators bound after it, and returns the function that restores
// the setting.
func SetNoWhiten(off bool) (restore func()) {
	old := noWhiten
	noWhiten = off
	return func() { noWhiten = old }
}
