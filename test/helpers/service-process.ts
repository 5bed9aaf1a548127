import type { ChildProcess } from 'node:child_process';

/** Everything a started service prints, on both streams, as it has come so far. */
export function collectOutput(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (c) => {
    output += c;
  });
  child.stderr?.on('data', (c) => {
    output += c;
  });
  return () => output;
}

/**
 * Waits until the service on `port` answers /api/health with a 200 (asked every 200 ms); throws
 * with what it printed if it exits first or is not healthy within `timeoutMs`.
 */
export async function untilHealthy(
  child: ChildProcess,
  port: number,
  output: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited at start (${child.exitCode}):\n${output()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the service did not become healthy:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
