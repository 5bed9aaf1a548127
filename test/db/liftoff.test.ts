import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The server runs PGlite's WebAssembly under V8's baseline compiler alone (server.ts,
// servePgliteFromBaselineCode), where a function the baseline compiler cannot compile is a fatal
// error instead of a fallback to the optimising one. Compiling every function of this PGlite at
// once under that flag proves that none is such: a PGlite upgrade that brought one fails here, not
// in production on the first call of that function.
describe("PGlite's WebAssembly under the baseline compiler alone", () => {
  it('compiles whole, without a bailout', () => {
    const wasm = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm');
    // Compiled synchronously: a pending WebAssembly.compile does not keep Node 24's event loop alive.
    const script = `new WebAssembly.Module(require('node:fs').readFileSync(${JSON.stringify(wasm)})); console.log('compiled')`;
    const out = execFileSync(process.execPath, ['--liftoff-only', '--no-wasm-lazy-compilation', '-e', script], {
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('compiled');
  });
});
