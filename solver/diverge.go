package solver

import "fmt"

// lowerDivergeHint says, for a diverging lower level, what to change: a
// fixed lower step too long for g's curvature (as when the data are on
// another scale than the settings were made for), unless the lower steps
// were BB steps, which choose their own length.
func (r *RHGD) lowerDivergeHint() string {
	if r.lbb != nil {
		return ""
	}
	return fmt.Sprintf("; the fixed lower steps of η_y = %g are too long for this g: take a smaller Settings.EtaY, or the adaptive lower steps of AdaptiveSettings", r.s.EtaY)
}

// upperDivergeHint says, for a diverging upper level, which step was too
// long and what to change.
func (r *RHGD) upperDivergeHint() string {
	if r.ubb != nil {
		return fmt.Sprintf("; the last BB upper step η = %.3g was too long: lower Settings.Upper.MaxStep", r.ubb.prevStep)
	}
	return fmt.Sprintf("; the upper step η_x = %g is too long: take a smaller Settings.EtaX, or the BB upper steps of AdaptiveSettings", r.s.EtaX)
}
