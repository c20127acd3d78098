import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the web console (src/console) into dist/console: one hashed JavaScript bundle and one hashed
 * stylesheet under assets/, and index.html naming them. `npm run build` runs it; the console tests call
 * `buildConsole` before they start. The gateway serves the result (src/http/console-static.ts).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CONSOLE_OUT_DIR = join(ROOT, 'dist', 'console');

export async function buildConsole(outDir: string = CONSOLE_OUT_DIR): Promise<{ script: string; stylesheet: string }> {
  await rm(outDir, { recursive: true, force: true });
  const assets = join(outDir, 'assets');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/console/main.tsx'],
    tsconfig: 'src/console/tsconfig.json',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: false,
    legalComments: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => join(ROOT, file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const stylesheet = outputs.find((file) => file.endsWith('.css'));
  if (!script || !stylesheet) throw new Error(`the console build wrote no script or stylesheet: ${outputs.map((file) => relative(ROOT, file)).join(', ')}`);
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gateway console</title>
<link rel="stylesheet" href="/console/assets/${basename(stylesheet)}">
<script type="module" src="/console/assets/${basename(script)}"></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'index.html'), page);
  return { script: basename(script), stylesheet: basename(stylesheet) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = await buildConsole();
  process.stdout.write(`console built in ${relative(process.cwd(), CONSOLE_OUT_DIR)}: ${built.script}, ${built.stylesheet}\n`);
}
