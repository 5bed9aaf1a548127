/**
 * npm run conformance — runs the official MCP conformance suite against the service. Needs
 * Node ≥ 22 (CI runs it under Node 24): `npx -y -p node@24 -- npm run conformance`.
 *
 * Scenarios that apply to this server (tools, resources, prompts, completions) run from two releases of the suite: 0.1.16 (the
 * 2025 revisions) and 0.2.0-alpha.12 (adds the stateless 2026-07-28 revision). A failed check
 * fails the run unless it is listed below as not applicable, with the reason.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const SUITES = {
  '0.1.16': 'node_modules/@modelcontextprotocol/conformance/dist/index.js',
  '0.2.0-alpha.12': 'node_modules/conformance-next/dist/index.js',
} as const;

const SCENARIOS: Array<{ suite: keyof typeof SUITES; name: string }> = [
  { suite: '0.1.16', name: 'server-initialize' },
  { suite: '0.1.16', name: 'ping' },
  { suite: '0.1.16', name: 'tools-list' },
  { suite: '0.1.16', name: 'dns-rebinding-protection' },
  { suite: '0.2.0-alpha.12', name: 'server-initialize' },
  { suite: '0.2.0-alpha.12', name: 'tools-list' },
  { suite: '0.2.0-alpha.12', name: 'dns-rebinding-protection' },
  { suite: '0.2.0-alpha.12', name: 'server-stateless' },
  { suite: '0.2.0-alpha.12', name: 'http-header-validation' },
  { suite: '0.2.0-alpha.12', name: 'caching' },
];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Failures that say nothing about this server, and why. */
function notApplicable(check: Check): string | undefined {
  if (check.errorMessage?.startsWith('Not testable:')) {
    return "needs one of the reference server's diagnostic tools, which a production server does not expose";
  }
  return undefined;
}

async function startService(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    if (/listening on/.test(line)) {
      child.stdout?.resume();
      return child;
    }
  }
  throw new Error('the service exited before listening');
}

async function runScenario(suite: keyof typeof SUITES, name: string, url: string, outDir: string): Promise<Check[]> {
  const child = spawn(process.execPath, [SUITES[suite], 'server', '--url', url, '--scenario', name, '-o', outDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await once(child, 'exit');
  const [run] = await readdir(outDir);
  if (!run) throw new Error(`${suite} ${name}: no results written`);
  return JSON.parse(await readFile(join(outDir, run, 'checks.json'), 'utf8')) as Check[];
}

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    console.error(
      `The conformance suite needs Node ≥ 22 (this is ${process.version}): npx -y -p node@24 -- npm run conformance`,
    );
    return 1;
  }
  const work = await mkdtemp(join(tmpdir(), 'stages-conformance-'));
  const port = 41_000 + Math.floor(Math.random() * 1000);
  const service = await startService(join(work, 'data'), port);
  let failed = 0;
  try {
    const url = `http://localhost:${port}/api/mcp`;
    for (const [i, { suite, name }] of SCENARIOS.entries()) {
      const checks = await runScenario(suite, name, url, join(work, `out-${i}`));
      const passed = checks.filter((c) => c.status === 'SUCCESS').length;
      const failures = checks.filter((c) => c.status === 'FAILURE');
      const excused = failures.filter((c) => notApplicable(c));
      const real = failures.filter((c) => !notApplicable(c));
      failed += real.length;
      console.log(
        `${real.length ? 'FAIL' : 'pass'}  ${name.padEnd(26)} conformance ${suite.padEnd(15)} ${passed} passed, ${real.length} failed, ${excused.length} not applicable, ${checks.length - passed - failures.length} skipped/info`,
      );
      for (const c of real) console.log(`      ✗ ${c.id}: ${c.errorMessage ?? ''}`);
      for (const c of excused) console.log(`      – ${c.id}: not applicable (${notApplicable(c)})`);
    }
  } finally {
    service.kill('SIGTERM');
    await once(service, 'exit');
    await rm(work, { recursive: true, force: true });
  }
  console.log(failed ? `\n${failed} conformance check(s) failed` : '\nAll applicable conformance checks passed');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
