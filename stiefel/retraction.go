package stiefel

import (
	"fmt"
	"strings"
)

// retractionNames are the names String writes and ParseRetraction reads,
// as the CLI's -retr-x and the C ABI's retr= spell them.
var retractionNames = [...]string{QR: "qr", Polar: "polar", Cayley: "cayley", Exponential: "exp"}

// String returns the retraction's name: qr, polar, cayley or exp, the
// name ParseRetraction reads.
func (r Retraction) String() string {
	if r >= 0 && int(r) < len(retractionNames) {
		return retractionNames[r]
	}
	return fmt.Sprintf("Retraction(%d)", int(r))
}

// ParseRetraction returns the retraction a name gives (case-insensitive):
// qr, polar, cayley, or exp (also exponential); the error lists the names.
func ParseRetraction(name string) (Retraction, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "exponential" {
		return Exponential, nil
	}
	for r, s := range retractionNames {
		if s == n {
			return Retraction(r), nil
		}
	}
	return 0, fmt.Errorf("stiefel: unknown retraction %q (want qr, polar, cayley or exp)", name)
}
