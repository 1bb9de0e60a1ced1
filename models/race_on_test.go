//go:build race

package models

// raceEnabled: the race detector is on. It makes sync.Pool drop items at
// random, so exact allocation counts (which count the Go backend's pooled
// buffers as reused) hold only without it.
const raceEnabled = true
