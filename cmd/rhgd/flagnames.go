package main

import "strings"

// flagNames turns the library's names of settings in an error message
// (the solver speaks Go: "take a smaller Settings.EtaY") into the command
// line's flags.
// The settings' flags come from the solver's table (settingFlagNames).
var flagNames = strings.NewReplacer(append([]string{
	"AdaptiveSettings", "-preset adaptive",
	"Settings.Lower must be zero", "it needs -preset paper",
}, settingFlagNames()...)...)
