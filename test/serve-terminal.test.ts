import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setupLinkAtTerminal } from '../src/cli/setup-link.js';
import { ensureGone, exitWithin } from './helpers/delivery-rig.js';
import { BIN, startServe } from './helpers/serve-process.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const SETUP_LINK = /http:\/\/127\.0\.0\.1:\d+\/setup\?token=[A-Za-z0-9_-]{43}/;
/** The link alone on its line, indented, as a person at the terminal sees it (the terminal ends lines with \r\n). */
const PLAIN_LINE = /\n {4}(http:\/\/127\.0\.0\.1:\d+\/setup\?token=[A-Za-z0-9_-]{43})\r?\n/;

describe('the first-run setup link of mailroom serve', () => {
  // A store with no user: serve makes a setup link for it at each start.
  let store: FreshStore;
  before(async () => {
    store = await freshStore();
  });
  after(() => store.drop());

  it('is printed plainly at a terminal, besides its JSON log line', async () => {
    const env = { ...process.env, ...store.env, PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', LOG_LEVEL: 'info' };
    // util-linux's script: serve's standard output and error are a pseudo-terminal, as in a shell. script runs
    // the command through $SHELL -c; `exec` makes serve the terminal's process itself, whatever the shell: dash
    // (SHELL unset or /bin/sh) would otherwise wait for it, take the Ctrl-C too and die of it (exit 130).
    const child = spawn('script', ['-q', '-e', '-c', `exec '${process.execPath}' '${BIN}' serve`, '/dev/null'], { env });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    let endedBy: string | null = null;
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code, signal) => {
        endedBy = signal;
        resolve(code);
      }),
    );
    try {
      const link = await waitFor(() => PLAIN_LINE.exec(screen)?.[1], 'the setup link on a line of its own', { timeoutMs: 30_000 });
      assert.match(screen, /mailroom: no one can sign in yet\. Open this link within an hour to create the first admin account and workspace:\r?\n/);
      // The log's lines are written a few kilobytes, or 100 ms, at a time: the JSON line may come after.
      const jsonLines = () => screen.split(/\r?\n/).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
      await waitFor(() => jsonLines().some((line) => line.msg.includes(link)), 'the JSON line with the same link', { timeoutMs: 10_000 });
      // Ctrl-C at the terminal: serve stops cleanly.
      child.stdin.write('\x03');
      const code = await exitWithin(exited, 20_000, 'mailroom serve');
      // The end of the screen first: a stop that went wrong says why there, after the start's lines.
      assert.equal(code, 0, `exit code ${code}, signal ${endedBy}; the screen's end:\n${screen.slice(-4000)}`);
    } finally {
      await ensureGone(child);
    }
  });

  it('is only in the JSON log line when standard output is not a terminal', async () => {
    const server = await startServe(store.env);
    try {
      const logged = await waitFor(() => SETUP_LINK.exec(server.output())?.[0], 'the setup link in the log');
      const lines = server.output().split('\n').filter((line) => line.includes(logged));
      assert.equal(lines.length, 1, server.output());
      assert.ok(lines[0]!.startsWith('{'), lines[0]);
      assert.doesNotMatch(server.output(), /Open this link/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('is told again only at a terminal, and not when LOG_FORMAT=pretty shows the log line as text already', () => {
    assert.equal(setupLinkAtTerminal({ logFormat: 'json', logLevel: 'info' }, false), undefined);
    assert.equal(setupLinkAtTerminal({ logFormat: 'pretty', logLevel: 'info' }, true), undefined);
    assert.equal(typeof setupLinkAtTerminal({ logFormat: 'json', logLevel: 'info' }, true), 'function');
    // A level that hides the info line would hide the link with it: at a terminal it is told all the same.
    assert.equal(typeof setupLinkAtTerminal({ logFormat: 'pretty', logLevel: 'warn' }, true), 'function');
    assert.equal(typeof setupLinkAtTerminal({ logFormat: 'json', logLevel: 'silent' }, true), 'function');
  });
});
