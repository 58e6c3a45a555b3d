// For TypeScript's check of the glue (tsconfig.json): the CommonJS names
// that classic.js looks for, which a browser does not define.
declare var module: { exports: unknown } | undefined;
declare var exports: Record<string, unknown> | undefined;
declare var __dirname: string | undefined;
