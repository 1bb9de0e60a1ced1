//go:build race

package toolcall

// taggedRace: the race detector is on (slow walks over the real vocabulary are skipped).
const taggedRace = true
