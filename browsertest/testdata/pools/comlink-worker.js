// #region worker
importScripts("/dist/sabmutex.js", "/lib/comlink/dist/umd/comlink.js", "tasks.js");

Comlink.expose({ join: (init, name) => sabmutex.init({ ...init, name }), add, drain, hold });
// #endregion
