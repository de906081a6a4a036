/** Imported first: every demo server this test process starts runs the loop on the OpenAI Responses API. */
process.env.ASK_USER_RUNTIME = 'responses';
