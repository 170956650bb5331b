package lapackx

// Info describes the LAPACK side of the backend, for `rhgd info`.
type Info struct {
	Backend         string `json:"backend"`           // "openblas" or "gonum"
	EigDriver       string `json:"eig_driver"`        // LAPACK routine behind EigSym
	EigSerialCutoff int    `json:"eig_serial_cutoff"` // below it eigensolves run on one thread
	ExpmExactNorms  int    `json:"expm_exact_norms"`  // below it Expm uses exact 1-norms
}

// CurrentInfo reports the LAPACK backend and size crossovers in use.
func CurrentInfo() Info {
	b := lp()
	return Info{Backend: b.name(), EigDriver: b.eigDriver(), EigSerialCutoff: eigSerialCutoff, ExpmExactNorms: exactNormCutoff}
}
