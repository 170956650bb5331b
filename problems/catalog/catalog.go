// Package catalog lists rhgd's ready-made problems by name, for the
// command line and the C ABI.
package catalog

import (
	"fmt"
	"slices"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/problems/plstiefel"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/problems/synthetic"
)

// ErrUnknown signifies a problem name the catalog does not have
// (numerr.ErrInvalid).
var ErrUnknown = numerr.New(numerr.ErrInvalid, "unknown problem")

// specs are the problems, in the order Names lists them.
var specs = []*problems.Spec{&synthetic.Spec, &hyperrep.Spec, &domainadapt.Spec, &minmax.Spec, &karcher.Spec, &spdnet.Spec, &meta.Spec, &plstiefel.Spec}

// Names lists the problems.
func Names() []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// Lookup returns the problem called name, or an error listing the names.
func Lookup(name string) (*problems.Spec, error) {
	i := slices.IndexFunc(specs, func(s *problems.Spec) bool { return s.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w %q (have %v)", ErrUnknown, name, Names())
	}
	return specs[i], nil
}
