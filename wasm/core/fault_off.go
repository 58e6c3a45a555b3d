//go:build !sabmutex_broken

package core

// brokenUnlockForgetsNotify is a deliberate bug, compiled in only with the
// build tag sabmutex_broken (fault_on.go), so that the host tests can show
// that their interleaving explorer catches a lost wake-up.
const brokenUnlockForgetsNotify = false
