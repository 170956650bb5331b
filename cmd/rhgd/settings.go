package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/solver"
)

// handFlags are the solver settings with flags of their own in
// runFlags.register, which left out keep the problem's value (and -seed
// seeds the data too); every other key of solver.SettingsTable gets a
// flag from the table (registerSettings).
var handFlags = map[string]bool{"eta_x": true, "eta_y": true, "inner": true, "epochs": true, "grad_tol": true,
	"runtime": true, "seed": true, "batch_lower": true, "batch_upper": true, "batch_cross": true, "batch_hess": true}

// flagName is the flag of a settings key: eta_x is -eta-x.
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// settingFlag is a flag made from the solver's settings table: it checks
// its value and keeps it for build, which applies it over the problem's
// settings (and the preset) through solver.ParseSettings.
type settingFlag struct {
	info solver.SettingInfo
	o    *runFlags
}

func (f *settingFlag) String() string { return "" }

func (f *settingFlag) Set(v string) error {
	if _, err := solver.ParseSettings(f.info.Key+"="+v, solver.Settings{}); err != nil {
		if x, perr := strconv.ParseFloat(v, 64); perr == nil && x == 0 && f.info.ZeroIsDefault {
			name := flagName(f.info.Key)
			return fmt.Errorf("0 would mean the default, not 0; leave -%s out for the default (%s)", name, flagName(f.info.Default))
		}
		return fmt.Errorf("want %s", f.info.Type)
	}
	for i, p := range f.o.settings {
		if p.Key == f.info.Key { // the last one given wins, as for every flag
			f.o.settings[i].Value = v
			return nil
		}
	}
	f.o.settings = append(f.o.settings, keyval.Pair{Key: f.info.Key, Value: v})
	return nil
}

// IsBoolFlag lets -lower-bb stand for -lower-bb=true.
func (f *settingFlag) IsBoolFlag() bool { return f.info.Type == "bool" }

// registerSettings declares a flag for each solver setting without one
// of its own.
func (o *runFlags) registerSettings(fs *flag.FlagSet) {
	for _, e := range solver.SettingsTable() {
		if !handFlags[e.Key] {
			fs.Var(&settingFlag{info: e, o: o}, flagName(e.Key), e.Doc)
		}
	}
}

// applySettings applies the table's flags over s.
func (o *runFlags) applySettings(s *solver.Settings) error {
	if len(o.settings) == 0 {
		return nil
	}
	ns, err := solver.ParseSettings(keyval.Join(o.settings), *s)
	if err != nil {
		return usagef("%v", err)
	}
	*s = ns
	return nil
}

// settingFlagNames are the library's Go names of settings in error
// messages and the flags that set them, for flagNames.
func settingFlagNames() []string {
	var out []string
	for _, e := range solver.SettingsTable() {
		out = append(out, "Settings."+e.Field, "-"+flagName(e.Key))
	}
	return out
}

// showSettingDefaults sets the help's defaults of the table's flags to
// the values of s, the settings a run would have.
func showSettingDefaults(fs *flag.FlagSet, s solver.Settings) {
	pairs, _ := keyval.Split(s.String())
	for _, p := range pairs {
		if f := fs.Lookup(flagName(p.Key)); f != nil && !handFlags[p.Key] {
			f.DefValue = p.Value
		}
	}
}
