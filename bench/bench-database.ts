import pg from 'pg';

/**
 * With DATABASE_URL set, the run uses a database of its own on that server,
 * created now and dropped at the end, so the figures never depend on (or
 * touch) what the named database holds.
 */
export async function createBenchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mailroom_bench_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
