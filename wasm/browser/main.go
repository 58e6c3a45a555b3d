//go:build js && wasm

// Command browser is sabmutex's WebAssembly module for browsers (GOOS=js).
// Load it with dist/sabmutex.js or dist/sabmutex.mjs: they provide the
// imports the core needs and call its exports.
//
// main only hands the protocol's constants to the glue and then parks; after
// that, every call comes in through the core's //go:wasmexport functions.
package main

import (
	"syscall/js"

	"github.com/sabmutex/sabmutex/wasm/core"
)

func main() {
	// The glue runs wasm_exec.js against a private global object and puts
	// this function on it (see jsglue/go_runtime.js).
	ready := js.Global().Get("sabmutexGoReady")
	if ready.Type() != js.TypeFunction {
		js.Global().Get("console").Call("error",
			"sabmutex: sabmutex.wasm was started without its glue; load it with sabmutex.js or sabmutex.mjs and call sabmutex.init()")
		return
	}
	ready.Invoke(core.Protocol())
	select {} // keep the instance alive for the exports
}
