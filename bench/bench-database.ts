import pg from 'pg';

/**
 * With DATABASE_URL set, the run uses a database of its own on that server,
 * created now and dropped at the end, so the figures never depend on (or
 * touch) what the named database holds.
 */
export async function createBenchDatabase(serverUrl: string, keep?: { name: string }): Promise<{ url: string; drop(): Promise<void> }> {
  const name = keep?.name ?? `mailroom_bench_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (keep) {
    // Kept from one run to the next: made once, never dropped here.
    await admin(`create database ${name}`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error; // it exists already
    });
    return { url: url.toString(), drop: async () => {} };
  }
  await admin(`create database ${name}`);
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
