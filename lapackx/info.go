package lapackx

import "github.com/rhgd/rhgd/blas"

// Info describes the LAPACK side of the backend, for `rhgd info`.
type Info struct {
	Backend        string `json:"backend"`          // "openblas" or "gonum"
	EigDriver      string `json:"eig_driver"`       // LAPACK routine behind EigSym
	ExpmExactNorms int    `json:"expm_exact_norms"` // below it Expm uses exact 1-norms
	// ThreadsFrom are the orders from which these LAPACK calls run on all
	// OpenBLAS threads (blas's table in use; the calls left out run on one
	// at every order, see backend_native.go). Empty for the gonum backend.
	ThreadsFrom map[string]int `json:"threads_from,omitempty"`
}

// CurrentInfo reports the LAPACK backend and size crossovers in use.
func CurrentInfo() Info {
	b := lp()
	inf := Info{Backend: b.name(), EigDriver: b.eigDriver(), ExpmExactNorms: exactNormCutoff}
	if _, ok := b.(nativeLapack); ok {
		inf.ThreadsFrom = map[string]int{}
		for name, c := range map[string]blas.Call{"dpotrf": blas.CallPotrf, "dpotri": blas.CallPotri, "dgetrf": blas.CallGetrf,
			"dsygst": blas.CallSygst, "dsyevd": blas.CallSyevd, "qr": blas.CallQR, "dgees": blas.CallGees} {
			if from := blas.ThreadsFrom(c); from != blas.Never {
				inf.ThreadsFrom[name] = from
			}
		}
	}
	return inf
}
