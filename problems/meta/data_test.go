package meta_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/data/digits"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/meta"
)

// TestDigits: the pixels are the file's divided by 16, in [0, 1].
func TestDigits(t *testing.T) {
	d, err := meta.Digits()
	require.NoError(t, err)
	raw, err := digits.Load()
	require.NoError(t, err)
	require.Equal(t, raw.Labels, d.Labels)
	for i, x := range raw.X {
		require.Equal(t, x/16, d.X[i])
	}
	require.NoError(t, d.Validate())
}

// TestMakeTasks: every task has Ways classes of its side, Shots support
// and Queries query images of each, labelled by the class's position, all
// distinct; ByClass puts digits 0–4 on the training side and 5–9 on the
// test side; BySample uses disjoint images on the two sides; the tasks and
// the mean depend on the seed alone.
func TestMakeTasks(t *testing.T) {
	d, err := meta.Digits()
	require.NoError(t, err)
	spec := meta.TaskSpec{Ways: 5, Shots: 3, Queries: 4}
	for _, by := range []meta.SplitBy{meta.ByClass, meta.BySample} {
		ts, err := meta.MakeTasks(d, by, spec, 20, 30, 7)
		require.NoError(t, err)
		require.Len(t, ts.Train, 20)
		require.Len(t, ts.Test, 30)
		sides := [2]map[int]bool{{}, {}}
		for side, tasks := range [][]meta.Task{ts.Train, ts.Test} {
			for _, task := range tasks {
				require.Len(t, task.Support, 15)
				require.Len(t, task.Query, 20)
				all := append(slices.Clone(task.Support), task.Query...)
				slices.Sort(all)
				require.Equal(t, len(all), len(slices.Compact(all)), "distinct images")
				digit := map[int]int{} // task label → digit
				check := func(imgs, labs []int, per int) {
					count := map[int]int{}
					for j, i := range imgs {
						l := labs[j]
						if dd, ok := digit[l]; ok {
							require.Equal(t, dd, d.Labels[i], "one digit per label")
						}
						digit[l] = d.Labels[i]
						count[l]++
						sides[side][i] = true
						if by == meta.ByClass {
							require.Equal(t, side == 1, d.Labels[i] >= 5, "digit %d on side %d", d.Labels[i], side)
						}
					}
					require.Len(t, count, 5)
					for _, c := range count {
						require.Equal(t, per, c)
					}
				}
				check(task.Support, task.SupLabels, 3)
				check(task.Query, task.QryLabels, 4)
				seen := map[int]bool{}
				for _, dd := range digit {
					require.False(t, seen[dd], "five different digits")
					seen[dd] = true
				}
			}
		}
		for i := range sides[0] {
			require.False(t, sides[1][i], "%v: image %d on both sides", by, i)
		}
		again, err := meta.MakeTasks(d, by, spec, 20, 30, 7)
		require.NoError(t, err)
		require.Equal(t, ts, again)
		other, err := meta.MakeTasks(d, by, spec, 20, 30, 8)
		require.NoError(t, err)
		require.NotEqual(t, ts.Train, other.Train)
	}
	for name, c := range map[string]struct {
		by   meta.SplitBy
		spec meta.TaskSpec
		n    int
	}{
		"6 ways of 5 classes": {meta.ByClass, meta.TaskSpec{Ways: 6, Shots: 1, Queries: 1}, 1},
		"1 way":               {meta.BySample, meta.TaskSpec{Ways: 1, Shots: 1, Queries: 1}, 1},
		"no shots":            {meta.BySample, meta.TaskSpec{Ways: 2, Queries: 1}, 1},
		"too many images":     {meta.BySample, meta.TaskSpec{Ways: 2, Shots: 60, Queries: 40}, 1},
		"no tasks":            {meta.BySample, meta.TaskSpec{Ways: 2, Shots: 1, Queries: 1}, 0},
	} {
		_, err := meta.MakeTasks(d, c.by, c.spec, c.n, 1, 1)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
	for _, s := range []string{"classes", "samples"} {
		by, err := meta.ParseSplit(s)
		require.NoError(t, err)
		require.Equal(t, s, by.String())
	}
	_, err = meta.ParseSplit("tasks")
	require.ErrorIs(t, err, problems.ErrBadData)
}
