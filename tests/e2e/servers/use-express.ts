/** Imported first: every demo server this test process starts runs on Express. */
process.env.ASK_USER_SERVER = 'express';
