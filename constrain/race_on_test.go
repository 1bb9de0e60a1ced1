//go:build race

package constrain

// raceEnabled: the race detector is on; the mask comparison on the real
// vocabulary (no concurrency in it) runs fewer steps.
const raceEnabled = true
