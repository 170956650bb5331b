package spd

// CondPoint is condPoint, for the external test package's benchmarks.
var CondPoint = condPoint
