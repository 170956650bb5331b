package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/solver"
)

// handFlags are the solver settings with flags of their own in
// runFlags.register: -seed seeds the data too. Every other key of
// solver.SettingsTable gets a flag from the table (registerSettings).
var handFlags = map[string]bool{"seed": true}

// flagName is the flag of a settings key: eta_x is -eta-x.
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// settingFlag is a flag made from the solver's settings table. Set checks
// its value's syntax and keeps it; build applies the flags over the
// problem's settings (and the preset) through solver.ParseSettings, which
// checks ranges and refuses a 0 that would stand for the problem's value
// or a default (applySettings says which).
type settingFlag struct {
	info solver.SettingInfo
	o    *runFlags
	v    string
}

func (f *settingFlag) String() string {
	if f == nil {
		return ""
	}
	return f.v
}

func (f *settingFlag) Set(v string) error {
	if _, err := solver.ParseSettings(f.info.Key+"="+v, solver.Settings{}); err != nil {
		var se *solver.SettingError
		switch {
		case !errors.As(err, &se): // a comma in the value
			return fmt.Errorf("want one value")
		case se.Want != "" && !syntaxOK(f.info.Type, v):
			return fmt.Errorf("want %s", se.Want)
		}
	}
	f.v = v
	f.o.settings = setPair(f.o.settings, f.info.Key, v)
	return nil
}

// setPair sets key to v in pairs, in place when it is there (the last
// flag given wins, as for every flag), else at the end.
func setPair(pairs []keyval.Pair, key, v string) []keyval.Pair {
	for i, p := range pairs {
		if p.Key == key {
			pairs[i].Value = v
			return pairs
		}
	}
	return append(pairs, keyval.Pair{Key: key, Value: v})
}

// syntaxOK reports whether v is of the type's syntax, if not of its
// range (-1 for an int, NaN for a float): such a value is refused when
// the flags are applied, in the command line's words (applySettings).
func syntaxOK(typ, v string) bool {
	var err error
	switch typ {
	case "float":
		_, err = strconv.ParseFloat(v, 64)
	case "int":
		_, err = strconv.ParseInt(v, 10, 64)
	case "uint64":
		_, err = strconv.ParseUint(v, 10, 64)
	case "seconds":
		if _, err = strconv.ParseFloat(v, 64); err != nil {
			_, err = time.ParseDuration(v)
		}
	default:
		return false
	}
	return err == nil
}

// Get returns a number's value, for finiteFloats.
func (f *settingFlag) Get() any {
	if x, err := strconv.ParseFloat(f.v, 64); err == nil && (f.info.Type == "float" || f.info.Type == "seconds") {
		return x
	}
	return f.v
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

// applySettings applies the table's flags over s, the problem's settings:
// a flag left out keeps the problem's value. The table's error is put in
// the command line's terms: a 0 that stands for the problem's value or
// the default (issue 27: an explicit 0 is never silently a default), a
// negative value.
func (o *runFlags) applySettings(s *solver.Settings) error {
	if len(o.settings) == 0 {
		return nil
	}
	ns, err := solver.ParseSettings(keyval.Join(o.settings), *s)
	var se *solver.SettingError
	switch {
	case errors.As(err, &se) && se.Zero != "" && se.Default:
		return usagef("-%[1]s %[2]s would mean the default, not 0; leave -%[1]s out for the default (%[3]s)", flagName(se.Key), se.Value, flagName(se.Zero))
	case errors.As(err, &se) && se.Zero != "":
		return usagef("-%[1]s %[2]s would mean the problem's value, not 0; leave -%[1]s out for the problem's (%[3]s)", flagName(se.Key), se.Value, se.Zero)
	case errors.As(err, &se) && strings.HasPrefix(se.Value, "-"):
		return usagef("-%s must not be negative, have %s", flagName(se.Key), se.Value)
	case errors.As(err, &se):
		return usagef("-%s %s: want %s", flagName(se.Key), se.Value, se.Want)
	case err != nil:
		return usagef("%v", err)
	}
	*s = ns
	return nil
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
