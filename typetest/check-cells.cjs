// Part of the type matrix (matrix.mjs): type-checks several tsconfig.json
// projects with one TypeScript written in JavaScript (5.x, 6.x), in one
// process, as `tsc -p <config>` would for each, but parsing TypeScript's own
// lib files once: that is most of each run's time. Prints one JSON line:
// [{ config, ok, output }].
//
//	node check-cells.cjs <typescript package dir> <tsconfig.json>...
"use strict";
const path = require("node:path");

const [tsDir, ...configs] = process.argv.slice(2);
const ts = require(path.resolve(tsDir));
const libDir = path.dirname(ts.getDefaultLibFilePath({}));
const libCache = new Map(); // lib file + how it is parsed -> SourceFile

const results = configs.map((config) => {
  // Paths in messages relative to the project, as tsc run there prints them.
  const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => path.dirname(path.resolve(config)), getNewLine: () => "\n" };
  const diagnostics = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => diagnostics.push(d),
  });
  if (!parsed) return { config, ok: false, output: ts.formatDiagnostics(diagnostics, formatHost) };
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    if (path.dirname(fileName) !== libDir) return getSourceFile.call(host, fileName, languageVersionOrOptions, onError, shouldCreate);
    const v = languageVersionOrOptions;
    const key = `${fileName}|${typeof v === "object" ? `${v.languageVersion}|${v.impliedNodeFormat}` : v}|${parsed.options.moduleDetection}`;
    let sf = libCache.get(key);
    if (!sf) libCache.set(key, (sf = getSourceFile.call(host, fileName, languageVersionOrOptions, onError, shouldCreate)));
    return sf;
  };
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host, configFileParsingDiagnostics: parsed.errors });
  const all = [...program.getConfigFileParsingDiagnostics(), ...ts.getPreEmitDiagnostics(program)];
  const errors = all.filter((d) => d.category === ts.DiagnosticCategory.Error);
  return { config, ok: errors.length === 0, output: ts.formatDiagnostics(all, formatHost) };
});
console.log(JSON.stringify(results));
