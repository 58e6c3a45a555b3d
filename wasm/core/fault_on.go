//go:build sabmutex_broken

package core

// A deliberately broken core: unlock of a contended mutex forgets to wake a
// waiter. Only hosttest's explorer builds it, to prove it catches the bug.
const brokenUnlockForgetsNotify = true
