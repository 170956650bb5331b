package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Replot redraws the scaling plots of a finished run in dir from its
// results.json, without timing anything: for a report whose figures a
// later change to the plotting fixes. It returns the files it wrote.
// Cases are found by name among the full and quick sizes; a name that is
// neither (a case since removed) is skipped.
func Replot(dir string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	var saved struct {
		Results []jsonResult `json:"results"`
	}
	if err := json.Unmarshal(raw, &saved); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "results.json"), err)
	}
	byName := map[string]*Case{}
	for _, s := range []Sizes{QuickSizes(), FullSizes()} {
		for _, c := range Cases(s) {
			byName[c.Name()] = &c
		}
	}
	var res []Result
	for _, j := range saved.Results {
		if c := byName[j.Name]; c != nil && j.Err == "" {
			res = append(res, Result{Case: c, Seconds: j.Seconds})
		}
	}
	var wrote []string
	for _, g := range groups(res) {
		path := filepath.Join(dir, "scaling-"+g+".svg")
		ok, err := plotScaling(path, g, res)
		if err != nil {
			return wrote, err
		}
		if ok {
			wrote = append(wrote, path)
		}
	}
	return wrote, nil
}
