package solver

import "github.com/rhgd/rhgd/numerr"

// lowerDivergeHint says, for a diverging lower level, what to change: a
// fixed lower step too long for g's curvature (as when the data are on
// another scale than the settings were made for), unless the lower steps
// were BB steps, which choose their own length. It is a message's tail,
// with its settings as numerr.Terms.
func (r *RHGD) lowerDivergeHint() error {
	if r.lbb != nil {
		return numerr.Errorf("")
	}
	if r.dir != nil {
		return r.sabaHint()
	}
	if r.s.Lower.AdaGrad {
		return numerr.Errorf("; AdaRHD's lower steps start at η_y = %g: take a smaller %v", r.s.EtaY, settingTerm("EtaY"))
	}
	return numerr.Errorf("; the fixed lower steps of η_y = %g are too long for this g: take a smaller %v, or the adaptive lower steps of %v",
		r.s.EtaY, settingTerm("EtaY"), termAdaptive)
}

// upperDivergeHint says, for a diverging upper level, which step was too
// long and what to change.
func (r *RHGD) upperDivergeHint() error {
	if r.dir != nil {
		return r.sabaHint()
	}
	if r.s.Upper.AdaGrad {
		return numerr.Errorf("; AdaRHD's upper steps start at η_x = %g: take a smaller %v", r.s.EtaX, settingTerm("EtaX"))
	}
	if r.ubb != nil {
		return numerr.Errorf("; the last BB upper step η = %.3g was too long: lower %v", r.ubb.prevStep, settingTerm("Upper.MaxStep"))
	}
	return numerr.Errorf("; the upper step η_x = %g is too long: take a smaller %v, or the BB upper steps of %v", r.s.EtaX, settingTerm("EtaX"), termAdaptive)
}

// sabaHint is the hint for an estimator that directs the lower steps
// (SABA), whose joint steps on y, v and x diverge together, and whose
// variance-reduced minibatch steps need shorter steps than full sums.
func (r *RHGD) sabaHint() error {
	return numerr.Errorf("; the %s estimator's constant steps η_y = %g (y's, and v's by default) and η_x = %g are too long: take a smaller %v first (its minibatch steps need shorter ones than full sums do), or %v",
		r.s.Estimator.Name(), r.s.EtaY, r.s.EtaX, settingTerm("EtaY"), settingTerm("EtaX"))
}
