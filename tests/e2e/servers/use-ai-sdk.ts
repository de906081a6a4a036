/** Imported first: every demo server this test process starts runs the kit's Vercel AI SDK runtime. */
process.env.ASK_USER_RUNTIME = 'ai-sdk';
