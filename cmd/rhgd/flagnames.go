package main

import "strings"

// flagNames turns the library's names of settings in an error message
// (the solver speaks Go: "take a smaller Settings.EtaY") into the command
// line's flags.
var flagNames = strings.NewReplacer(
	"Settings.EtaX", "-eta-x",
	"Settings.EtaY", "-eta-y",
	"AdaptiveSettings", "-preset adaptive",
	"Settings.Lower must be zero", "it needs -preset paper",
)
