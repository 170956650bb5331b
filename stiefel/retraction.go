package stiefel

import (
	"slices"

	"github.com/rhgd/rhgd/manifold"
)

// retractionNames are the names String writes and ParseRetraction reads,
// as the CLI's -retr-x and the C ABI's retr= spell them.
var retractionNames = [...]string{QR: "qr", Polar: "polar", Cayley: "cayley", Exponential: "exp"}

// retractionAliases are the other names ParseRetraction reads.
var retractionAliases = map[string]int{"exponential": int(Exponential)}

// String returns the retraction's name: qr, polar, cayley or exp, the
// name ParseRetraction reads.
func (r Retraction) String() string {
	return manifold.EnumName(retractionNames[:], "Retraction", int(r))
}

// ParseRetraction returns the retraction a name gives (case-insensitive):
// qr, polar, cayley, or exp (also exponential); the error lists the names.
func ParseRetraction(name string) (Retraction, error) {
	r, err := manifold.ParseName("stiefel: unknown retraction", name, retractionNames[:], retractionAliases)
	return Retraction(r), err
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
