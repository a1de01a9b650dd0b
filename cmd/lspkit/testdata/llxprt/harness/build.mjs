// Strips the types of LLxprt Code's vendored TypeScript sources: each .ts
// under the directories given becomes a .js beside it, as LLxprt's own
// build emits (ES modules; imports of types only are dropped, the rest
// kept as written). Nothing else of the code changes.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      walk(path);
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      const out = ts.transpileModule(readFileSync(path, 'utf8'), {
        fileName: path,
        compilerOptions: {
          module: ts.ModuleKind.ES2022,
          target: ts.ScriptTarget.ES2022,
          isolatedModules: true,
        },
        reportDiagnostics: true,
      });
      if (out.diagnostics?.length) {
        throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(out.diagnostics[0].messageText, '\n')}`);
      }
      writeFileSync(path.replace(/\.ts$/, '.js'), out.outputText);
    }
  }
}

for (const dir of process.argv.slice(2)) {
  walk(dir);
}
