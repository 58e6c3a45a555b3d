// A module worker. Static imports, so that onmessage is set before any message arrives.
import * as sabmutex from "/dist/sabmutex.mjs";
import "./worker-ops.js";

self.sabmutex = sabmutex;
