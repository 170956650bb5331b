package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSettingsTable: the table names every settable field of Settings
// once, by its path, with the type of the field.
func TestSettingsTable(t *testing.T) {
	var want []string
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			switch {
			case !f.IsExported() || f.Name == "Estimator" || f.Name == "Recorder":
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, prefix+f.Name+".")
			default:
				want = append(want, prefix+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[Settings](), "")
	var got []string
	keys := map[string]bool{}
	for _, e := range SettingsTable() {
		got = append(got, e.Field)
		require.False(t, keys[e.Key], "key %s twice", e.Key)
		keys[e.Key] = true
		require.Equal(t, strings.ToLower(e.Key), e.Key)
		require.NotEmpty(t, e.Doc, e.Key)
		info, ok := LookupSetting(strings.ToUpper(e.Key))
		require.True(t, ok)
		require.Equal(t, e, info)
	}
	require.ElementsMatch(t, want, got)
	_, ok := LookupSetting("nope")
	require.False(t, ok)
}

func TestParseSettings(t *testing.T) {
	base := Settings{EtaX: 0.5, Estimator: HInv{}}
	s, err := ParseSettings(" eta_y=0.25 , Inner=7,runtime=1m30s,seed=18446744073709551615,lower_bb=true,batch_report=3", base)
	require.NoError(t, err)
	require.Equal(t, Settings{EtaX: 0.5, EtaY: 0.25, InnerIters: 7, Runtime: 90 * time.Second, Seed: math.MaxUint64,
		Lower: LowerRule{BB: true}, Batches: Batches{Report: 3}, Estimator: HInv{}}, s)

	s, err = ParseSettings("", base)
	require.NoError(t, err)
	require.Equal(t, base, s)

	s, err = ParseSettings("epochs=5,preset=adaptive,upper_bb=false,runtime=2.5", Settings{})
	require.NoError(t, err)
	want := AdaptiveSettings()
	want.Epochs, want.Upper.BB, want.Runtime = 5, false, 2500*time.Millisecond
	require.Equal(t, want, s)

	for spec, key := range map[string]string{
		"eta_x=-1": "eta_x", "eta_x=NaN": "eta_x", "grad_tol=inf": "grad_tol", "epochs=1.5": "epochs",
		"inner=-2": "inner", "seed=-1": "seed", "lower_bb=maybe": "lower_bb", "runtime=inf": "runtime",
		"runtime=-1s": "runtime", "runtime=-1": "runtime", "foo=1": "foo", "eta_x": "eta_x",
		"eta_x=1,eta_x=2": "eta_x", "preset=fast": "preset",
	} {
		got, err := ParseSettings(spec, base)
		require.Error(t, err, spec)
		require.True(t, errors.Is(err, ErrBadSetting), spec)
		require.Contains(t, err.Error(), key, spec)
		require.Equal(t, base, got, spec)
	}
}

// TestSettingsStringRoundTrip: String writes every settable field and
// ParseSettings reads it back exactly, for edge values and random ones.
func TestSettingsStringRoundTrip(t *testing.T) {
	check := func(s Settings) {
		t.Helper()
		got, err := ParseSettings(s.String(), Settings{})
		require.NoError(t, err, s.String())
		require.Equal(t, s, got, s.String())
	}
	check(Settings{})
	s := AdaptiveSettings()
	a, b := 0.1, 0.2
	s.EtaX, s.Runtime, s.Seed, s.FDStep = a+b, time.Nanosecond, math.MaxUint64, math.SmallestNonzeroFloat64
	check(s)
	require.Contains(t, s.String(), "eta_x=0.30000000000000004,")
	require.Contains(t, s.String(), "runtime=0.000000001,")
	require.True(t, strings.HasPrefix(Settings{EtaX: 0.5}.String(), "eta_x=0.5,eta_y=0,inner=0,epochs=0,"))

	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var s Settings
		for _, e := range settingsTable {
			switch p := e.ptr(&s).(type) {
			case *float64:
				switch rng.IntN(4) {
				case 0:
				case 1:
					*p = rng.Float64()
				case 2:
					*p = math.Float64frombits(rng.Uint64() >> 2) // any finite magnitude
				default:
					*p = math.MaxFloat64 * rng.Float64()
				}
			case *int:
				*p = rng.IntN(maxInt + 1)
			case *uint64:
				*p = rng.Uint64()
			case *bool:
				*p = rng.IntN(2) == 1
			case *time.Duration:
				*p = time.Duration(rng.Int64())
			}
		}
		check(s)
	}
}

// FuzzParseSettings: any spec either fails with ErrBadSetting or gives
// settings that String writes back exactly.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{"", "eta_x=0.5", "preset=adaptive,epochs=3", "runtime=1m,seed=7", "lower_bb=1,upper_max_step=1e300", "a", "eta_x=1,eta_x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSettings(spec, Settings{})
		if err != nil {
			require.ErrorIs(t, err, ErrBadSetting)
			return
		}
		back, err := ParseSettings(s.String(), Settings{})
		require.NoError(t, err)
		require.Equal(t, s, back)
	})
}
