//go:build !race

package conversation

// raceEnabled: the race detector is on; the slowest model-driven tests run
// fewer seeds (their point is the output, not concurrency).
const raceEnabled = false
