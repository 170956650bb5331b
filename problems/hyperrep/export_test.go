package hyperrep

// SmallEigCutoff exports smallEigCutoff to the external tests, which check
// both eigensolver paths.
const SmallEigCutoff = smallEigCutoff
