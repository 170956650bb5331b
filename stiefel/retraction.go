package stiefel

import (
	"fmt"
	"slices"
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
	names := RetractionNames()
	return 0, fmt.Errorf("stiefel: unknown retraction %q (want %s or %s)", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// RetractionNames returns the retractions' names, in the order of their
// values: the first, the zero value's, is the default.
func RetractionNames() []string { return slices.Clone(retractionNames[:]) }

// Retractions returns the retractions' names, qr, polar, cayley and exp, as
// SetRetraction reads them (solver.RetractionChooser).
func (s *Stiefel) Retractions() []string { return RetractionNames() }

// RetractionName returns the name of Retraction, the retraction Retract
// uses.
func (s *Stiefel) RetractionName() string { return s.Retraction.String() }

// SetRetraction sets Retraction to the one ParseRetraction reads in name;
// on an error it leaves Retraction as it was.
func (s *Stiefel) SetRetraction(name string) error {
	r, err := ParseRetraction(name)
	if err != nil {
		return err
	}
	s.Retraction = r
	return nil
}
