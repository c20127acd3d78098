// esbuild bundles the stylesheet the entry point imports (ops/console-build.ts).
declare module '*.css';
