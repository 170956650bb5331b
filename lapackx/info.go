package lapackx

// Info describes the LAPACK side of the backend, for `rhgd info`.
type Info struct {
	Backend        string `json:"backend"`          // "openblas" or "gonum"
	EigDriver      string `json:"eig_driver"`       // LAPACK routine behind EigSym
	ExpmExactNorms int    `json:"expm_exact_norms"` // below it Expm uses exact 1-norms
	// ThreadsFrom are the orders from which these LAPACK calls run on all
	// OpenBLAS threads; every other LAPACK call runs on one (see
	// backend_native.go). Empty for the gonum backend.
	ThreadsFrom map[string]int `json:"threads_from,omitempty"`
}

// CurrentInfo reports the LAPACK backend and size crossovers in use.
func CurrentInfo() Info {
	b := lp()
	inf := Info{Backend: b.name(), EigDriver: b.eigDriver(), ExpmExactNorms: exactNormCutoff}
	if _, ok := b.(nativeLapack); ok {
		inf.ThreadsFrom = map[string]int{}
		for name, from := range map[string]int{"dpotrf": potrfThreadsFrom, "dpotri": potriThreadsFrom,
			"dgetrf": getrfThreadsFrom, "dsygst": sygstThreadsFrom, "dsyevd": eigThreadsFrom, "qr": qrThreadsFrom,
			"dgees": schurThreadsFrom} {
			if from != never {
				inf.ThreadsFrom[name] = from
			}
		}
	}
	return inf
}
