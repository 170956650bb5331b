package main

import "github.com/rhgd/rhgd/numerr"

// cliSpell spells a name in a message as the command line knows it
// (main renders every error with it, numerr.Render): a setting and a
// problem's parameter by their flags (-eta-x, -start-seed), a preset by
// -preset, a built-in problem by its name. An oracle keeps its Go name:
// the command line has no oracles of its own.
func cliSpell(t numerr.Term) string {
	switch t.Kind {
	case numerr.KindSetting, numerr.KindParam:
		return "-" + flagName(t.Key)
	case numerr.KindPreset:
		return "-preset " + t.Key
	case numerr.KindProblem:
		return "such as the built-in " + t.Key
	}
	return t.Go
}
