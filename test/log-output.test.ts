import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { waitFor } from './helpers/wait-for.js';

const CHILD = new URL('./helpers/log-lines-child.ts', import.meta.url).pathname;

function logLines(count: number, mode: 'exit' | 'stay') {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, String(count), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

describe('JSON log lines on standard output', () => {
  it('writes them a few kilobytes at a time, whole lines in writes no longer than PIPE_BUF, and none is lost at exit', async () => {
    const run = logLines(5000, 'exit');
    const [code] = (await once(run.child, 'close')) as [number];
    assert.equal(code, 0, run.stderr());
    const lines = run.stdout().split('\n');
    assert.equal(lines.pop(), '', 'the output ends with a whole line');
    assert.equal(lines.length, 5000, 'every line logged before process.exit is written');
    lines.forEach((line, i) => assert.equal((JSON.parse(line) as { i: number }).i, i, `line ${i} in order`));
    const { writes, longest } = JSON.parse(run.stderr().trim().split('\n').pop()!) as { writes: number; longest: number };
    assert.ok(longest <= 4096, `no write over PIPE_BUF (the longest was ${longest} bytes)`);
    assert.ok(writes <= 5000 / 5, `about ten lines a write, not one (${writes} writes for 5000 lines)`);
  });

  it('writes a line that no other follows without waiting for company or for the exit', async () => {
    const run = logLines(1, 'stay');
    try {
      await waitFor(() => run.stdout().includes('\n'), 'the one line', { timeoutMs: 10_000 });
      assert.equal((JSON.parse(run.stdout()) as { i: number; msg: string }).msg, 'line');
    } finally {
      run.child.kill('SIGKILL');
      await once(run.child, 'close');
    }
  });
});
