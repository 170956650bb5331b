package spd

import (
	"slices"

	"github.com/rhgd/rhgd/manifold"
)

// retractionNames and transportNames are the names String writes and the
// Parse functions read, as the CLI's -retr-x and the C ABI's retr= and
// transport= spell them.
var (
	retractionNames = [...]string{SecondOrder: "second-order", Exponential: "exp"}
	transportNames  = [...]string{Identity: "identity", Parallel: "parallel"}
)

// retractionAliases are the other names ParseRetraction reads.
var retractionAliases = map[string]int{"secondorder": int(SecondOrder), "exponential": int(Exponential)}

// String returns the retraction's name, second-order or exp, the name
// ParseRetraction reads.
func (r Retraction) String() string {
	return manifold.EnumName(retractionNames[:], "Retraction", int(r))
}

// ParseRetraction returns the retraction a name gives (case-insensitive):
// second-order (also secondorder) or exp (also exponential).
func ParseRetraction(name string) (Retraction, error) {
	r, err := manifold.ParseName("spd: unknown retraction", name, retractionNames[:], retractionAliases)
	return Retraction(r), err
}

// RetractionNames returns the retractions' names, in the order of their
// values: the first, the zero value's, is the default.
func RetractionNames() []string { return slices.Clone(retractionNames[:]) }

// TransportNames returns the transports' names, the first the default.
func TransportNames() []string { return slices.Clone(transportNames[:]) }

// String returns the transport's name, identity or parallel, the name
// ParseTransport reads.
func (t TransportMethod) String() string {
	return manifold.EnumName(transportNames[:], "TransportMethod", int(t))
}

// ParseTransport returns the vector transport a name gives
// (case-insensitive): identity or parallel.
func ParseTransport(name string) (TransportMethod, error) {
	t, err := manifold.ParseName("spd: unknown transport", name, transportNames[:], nil)
	return TransportMethod(t), err
}

// Retractions returns the retractions' names, second-order and exp, as
// SetRetraction reads them (solver.RetractionChooser).
func (s *SPD) Retractions() []string { return RetractionNames() }

// RetractionName returns the name of Retraction, the retraction Retract
// uses.
func (s *SPD) RetractionName() string { return s.Retraction.String() }

// SetRetraction sets Retraction to the one ParseRetraction reads in name;
// on an error it leaves Retraction as it was.
func (s *SPD) SetRetraction(name string) error {
	r, err := ParseRetraction(name)
	if err != nil {
		return err
	}
	s.Retraction = r
	return nil
}
