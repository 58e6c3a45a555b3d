// A classic script (no import, no export) that uses the global `sabmutex`
// which <script src="sabmutex.js"> or importScripts defines.
/// <reference types="sabmutex" />

async function classicPage(): Promise<boolean> {
  await sabmutex.init();
  const m = new sabmutex.Mutex(new SharedArrayBuffer(8));
  return m.tryLock();
}
void classicPage;
