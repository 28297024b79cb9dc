import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createBodyBudget } from '../src/http/body-budget.js';

const MiB = 1024 * 1024;
const request = (bytes: number | undefined) => ({ headers: bytes === undefined ? {} : { 'content-length': String(bytes) } }) as unknown as FastifyRequest;

type Done = (error?: Error | null, payload?: unknown) => void;
/** The route hooks (callback style, as Fastify calls them) as promises. */
function hooksOf(budget: ReturnType<typeof createBodyBudget>) {
  const hooks = budget.hooks as unknown as {
    preParsing(r: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void;
    onResponse(r: FastifyRequest, reply: FastifyReply, done: Done): void;
  };
  return {
    preParsing: (r: FastifyRequest, reply: FastifyReply, payload: unknown) =>
      new Promise<unknown>((resolve, reject) => hooks.preParsing(r, reply, payload, (error, passed) => (error ? reject(error) : resolve(passed)))),
    onResponse: (r: FastifyRequest, reply: FastifyReply) => new Promise<void>((resolve) => hooks.onResponse(r, reply, () => resolve())),
  };
}

describe('the body budget of the send routes', () => {
  it('reads large bodies while they fit, one alone always, the rest first come first served; small ones at once', async () => {
    const budget = createBodyBudget(140 * MiB, 70 * MiB);
    const { preParsing, onResponse } = hooksOf(budget);
    const reply = { raw: new EventEmitter() } as unknown as FastifyReply;
    const admitted: string[] = [];
    const enter = (name: string, r: FastifyRequest) => preParsing(r, reply, name).then((payload) => admitted.push(String(payload)));
    const [a, b, c, d] = [request(60 * MiB), request(60 * MiB), request(undefined), request(60 * MiB)];
    const entering = [enter('a', a), enter('b', b), enter('c (chunked: counted as 70 MiB)', c), enter('d', d)];
    await enter('small', request(2_000));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(admitted.sort(), ['a', 'b', 'small'], 'two fit in 140 MiB; the small one is not held back');
    assert.deepEqual(budget.state(), { held: 120 * MiB, holders: 2, waiting: 2 });

    await onResponse(a, reply);
    await onResponse(a, reply); // given back once only
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(admitted, ['a', 'b', 'small', 'c (chunked: counted as 70 MiB)'], 'the first in line goes next');
    assert.deepEqual(budget.state(), { held: 130 * MiB, holders: 2, waiting: 1 });

    await onResponse(b, reply);
    await onResponse(c, reply);
    await Promise.all(entering);
    assert.deepEqual(admitted.at(-1), 'd');
    await onResponse(d, reply);
    assert.deepEqual(budget.state(), { held: 0, holders: 0, waiting: 0 });
  });

  it('gives the share back when the connection goes, waiting or admitted, so the budget never leaks', async () => {
    const budget = createBodyBudget(100 * MiB, 70 * MiB);
    const { preParsing } = hooksOf(budget);
    const [first, second, third] = [new EventEmitter(), new EventEmitter(), new EventEmitter()];
    const reply = (raw: EventEmitter) => ({ raw }) as unknown as FastifyReply;
    await preParsing(request(60 * MiB), reply(first), 'first');
    const waiting = preParsing(request(60 * MiB), reply(second), 'second');
    const third_ = preParsing(request(60 * MiB), reply(third), 'third');
    assert.deepEqual(budget.state(), { held: 60 * MiB, holders: 1, waiting: 2 });

    second.emit('close'); // its client gave up while waiting, unread
    await assert.rejects(waiting, /went away before its request body was read/);
    assert.deepEqual(budget.state(), { held: 60 * MiB, holders: 1, waiting: 1 });

    first.emit('close'); // answered (or gone) with no onResponse heard
    assert.equal(await third_, 'third');
    third.emit('close');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(budget.state(), { held: 0, holders: 0, waiting: 0 });
  });
});
