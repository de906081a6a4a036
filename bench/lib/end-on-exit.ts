/**
 * A throwaway server the bench started must not outlive the bench process: `destroy` runs on the process's
 * exit and on SIGINT, SIGTERM or SIGHUP (then the process exits as the signal's default action would).
 * Returns the function that stops watching, for a server stopped the normal way.
 */
export function endOnExit(destroy: () => void): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    destroy();
    // As the default action would have: the exit code says which signal ended the process.
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGHUP' ? 1 : 15));
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.on('exit', destroy);
  for (const s of signals) process.on(s, onSignal);
  return () => {
    process.off('exit', destroy);
    for (const s of signals) process.off(s, onSignal);
  };
}
