import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeTransition, SEND_STATUS_TRANSITIONS, type SendStatus } from '../src/sending/send-status.js';

const ALL: SendStatus[] = ['sent', 'delivered', 'bounced', 'failed', 'suppressed'];

describe('send status transitions', () => {
  it('moves an accepted recipient to any outcome, and a delivered one only to bounced', () => {
    for (const to of ['delivered', 'bounced', 'failed', 'suppressed'] as const) assert.equal(judgeTransition('sent', to), 'move', `sent → ${to}`);
    assert.equal(judgeTransition('delivered', 'bounced'), 'move');
  });

  it('never moves backward or out of a final status', () => {
    for (const from of ALL) {
      for (const to of ALL) {
        if (from === to || SEND_STATUS_TRANSITIONS[from].includes(to)) continue;
        assert.equal(judgeTransition(from, to), 'refused', `${from} → ${to}`);
      }
    }
    assert.equal(judgeTransition('bounced', 'delivered'), 'refused', 'a late delivery report does not undo a bounce');
    assert.equal(judgeTransition('delivered', 'sent'), 'refused');
    for (const final of ['bounced', 'failed', 'suppressed'] as const) assert.deepEqual(SEND_STATUS_TRANSITIONS[final], []);
  });

  it('calls the same status again a duplicate, to be recorded once', () => {
    for (const status of ALL) assert.equal(judgeTransition(status, status), 'duplicate');
  });

  it('has no edge that leads back to where it came from', () => {
    // Forward only: following edges from any status never returns to it.
    const reachable = (from: SendStatus, seen = new Set<SendStatus>()): Set<SendStatus> => {
      for (const next of SEND_STATUS_TRANSITIONS[from]) if (!seen.has(next)) reachable(next, seen.add(next));
      return seen;
    };
    for (const status of ALL) assert.ok(!reachable(status).has(status), `${status} can come back to itself`);
  });
});
