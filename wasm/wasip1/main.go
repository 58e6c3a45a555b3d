//go:build wasip1

// Command wasip1 is sabmutex's core built for GOOS=wasip1 with
// -buildmode=c-shared, so that the core tests can run it under wazero (which
// cannot run GOOS=js modules). It is the same core package, with the same
// exports and imports, as the browser module.
package main

import _ "github.com/sabmutex/sabmutex/internal/abi"

func main() {}
