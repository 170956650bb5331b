package synthetic

import (
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// The paper's experiment (Section 4.1): n = 100, d = 50, r = 20, ν = 0.01.
const (
	PaperN, PaperD, PaperR = 100, 50, 20
	PaperNu                = 0.01
)

// Paper is the paper's experiment: η_x = η_y = 0.5, S = 20 lower steps,
// K = 200 epochs; its estimators HINV, CG to a residual of 1e−10 in at
// most 50 iterations, NS with γ = 1 and T = 50 (its λ_max check on), and
// AD through the S lower steps.
var Paper = problems.Paper{
	Settings:   solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200},
	Estimators: []string{"hinv", "cg:maxiter=50,tol=1e-10", "ns:gamma=1,terms=50", "ad"},
}
