/** Tool calls a scripted model sends, shared by the loop's and the demo's tests. */

/** A single-choice ask_user call as a scripted model would send it. */
export const askSingle = (id?: string) => ({
  ...(id ? { id } : {}),
  name: 'ask_user',
  arguments: {
    title: 'How should I proceed?',
    mode: 'single',
    options: [
      { id: 'safe', label: 'Analyse first', recommended: true },
      { id: 'implement', label: 'Implement now' },
    ],
    allowCustom: true,
  },
});
