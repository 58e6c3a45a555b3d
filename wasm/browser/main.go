//go:build js && wasm

// Command browser is sabmutex's WebAssembly module for browsers (GOOS=js).
// Load it with dist/sabmutex.js or dist/sabmutex.mjs: they provide the
// imports the core needs and call its exports.
//
// main does nothing but park: the glue reads the protocol's constants
// through the export protocol, and every call comes in through the core's
// //go:wasmexport functions. (It does not use syscall/js, which would make
// the module much larger: docs/decisions/module-size.md.)
package main

import _ "github.com/sabmutex/sabmutex/internal/abi"

func main() {
	select {} // keep the instance alive for the exports
}
