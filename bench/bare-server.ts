/**
 * The baseline for bench/send.ts: a Fastify app with Mailroom's defaults for
 * body parsing (JSON) and nothing else, answering POST /v1/send with the same
 * envelope. Whatever Mailroom costs beyond this is its own work (auth, rate
 * limit, validation, SQLite), not the framework's or the machine's.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let counter = 0;

app.get('/v1/health/check', async () => ({ status: 'ok' }));
app.post('/v1/send', async () => ({
  success: true,
  data: { message_id: `msg_01jd${(counter++).toString(36).padStart(22, '0')}`, status: 'sent' },
}));

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
