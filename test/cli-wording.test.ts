import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandSuggestion } from '../src/cli/command-suggestion.js';
import { mailroomCommand as mailroom } from './helpers/serve-process.js';

describe('the mailroom command, in its own words', () => {
  it('names the nearest command after an unknown one, and for send, where sending is', () => {
    const cases: [string[], string][] = [
      [['sned'], "mailroom: unknown command 'sned' (there is no send command: Mailroom sends through POST /v1/send or SMTP submission); see mailroom --help\n"],
      [['serv'], "mailroom: unknown command 'serv' (Did you mean serve?); see mailroom --help\n"],
      [['workspac', 'list'], "mailroom: unknown command 'workspac' (Did you mean workspace?); see mailroom --help\n"],
      [['create'], "mailroom: unknown command 'create' (Did you mean one of api-key create, user create, workspace create?); see mailroom --help\n"],
      [['workspace', 'craete'], "mailroom: unknown command 'craete' (Did you mean create?); see mailroom workspace --help\n"],
      [['frobnicate'], "mailroom: unknown command 'frobnicate'; see mailroom --help\n"],
    ];
    for (const [args, stderr] of cases) {
      const res = mailroom(args, {});
      assert.deepEqual([res.status, res.stdout, res.stderr], [2, '', stderr], args.join(' '));
    }
    // The guesses keep to a couple of edits: two letters swapped count as one.
    assert.equal(commandSuggestion('mirgate', ['migrate', 'serve']), ' (Did you mean migrate?)');
    assert.equal(commandSuggestion('deploy', ['migrate', 'serve']), '');
  });

  it('shows the help on stderr with status 2 when no command is given, as for a group without its command', () => {
    for (const args of [[], ['workspace']]) {
      const res = mailroom(args, {});
      assert.equal(res.status, 2, args.join(' '));
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /^Usage: mailroom /);
    }
    // Asked for, the help is the answer: stdout, status 0.
    const asked = mailroom(['--help'], {});
    assert.deepEqual([asked.status, asked.stderr], [0, '']);
    assert.match(asked.stdout, /^Usage: mailroom /);
  });

  it('says in serve --help every port serve opens, with the variables that set it and their defaults', () => {
    const { status, stdout } = mailroom(['serve', '--help'], {});
    assert.equal(status, 0);
    assert.match(stdout, /Run the HTTP API and the dashboard, SMTP submission, the inbound receiver and\s+the delivery worker/);
    for (const row of [
      /API and dashboard +HOST:PORT +127\.0\.0\.1:3000\n/,
      /SMTP submission +HOST:SUBMISSION_PORT +127\.0\.0\.1:587\n/,
      /inbound SMTP \(bounces\) +INBOUND_SMTP_HOST:INBOUND_SMTP_PORT +HOST:2525\n/,
      /Prometheus metrics +HOST:METRICS_PORT +none \(0\)\n/,
      /A port of 0 opens nothing there \(PORT=0: any free port\)\./,
    ]) {
      assert.match(stdout, row);
    }
    assert.ok(stdout.split('\n').every((line) => line.length <= 80), `no line wider than a terminal:\n${stdout}`);
  });
});
