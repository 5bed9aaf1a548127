import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * A private redis-server for one test file, so that it can be stopped, hung (SIGSTOP) and resumed
 * under the app without touching the machine's shared Redis.
 */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  for await (const chunk of child.stdout!) {
    if (String(chunk).includes('Ready to accept connections')) break;
  }
  child.stdout?.resume();
  return child;
}

export async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT');
  child.kill('SIGKILL');
  await once(child, 'exit');
}
