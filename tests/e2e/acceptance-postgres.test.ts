/**
 * Acceptance rows 1–7 and two demo instances sharing one database, with the demo on PostgreSQL (contract §14,
 * `ASK_USER_STORE=postgres://…`): a throwaway PostgreSQL on loopback (tests/helpers/postgres-server.ts), a new
 * database for the shared demo and for each restart case. Another store is one more file like this one.
 */
import { Client } from 'pg';
import { startPostgresServer } from '../helpers/postgres-server.js';
import { acceptanceOnStore } from './stores/on-store.js';

let databases = 0;

/** A new database on the server of `url`, and the URL that names it. */
async function newDatabase(url: string, name: string): Promise<string> {
  const database = `e2e_${++databases}_${name.replace(/\W+/g, '_')}`.slice(0, 63);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  const fresh = new URL(url);
  fresh.pathname = `/${database}`;
  return fresh.href;
}

await acceptanceOnStore({ kind: 'postgres', label: 'PostgreSQL', start: startPostgresServer, fresh: newDatabase });
