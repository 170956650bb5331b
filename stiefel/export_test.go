package stiefel

// QRFallbacks returns how many QR retractions of s CholeskyQR2's guard
// passed to Householder.
func QRFallbacks(s *Stiefel) int { return s.qrFallbacks }
