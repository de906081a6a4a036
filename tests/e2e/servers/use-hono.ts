/** Imported first: every demo server this test process starts runs on Hono. */
process.env.ASK_USER_SERVER = 'hono';
