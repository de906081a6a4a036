/**
 * Acceptance rows 1–7 and two demo instances sharing one store, with the demo on Redis Cluster (contract §14,
 * `ASK_USER_STORE=redis+cluster://…`): a throwaway cluster on loopback (tests/helpers/redis-cluster.ts: three
 * masters with a replica each) for the file; every demo server of the file runs on it.
 *
 * A cluster has no databases, and the demo has no namespace switch, so the restart cases (row 7) share the
 * cluster and its keys with the shared demo instead of getting a store of their own (no `fresh`). That is safe:
 * sessions never collide (each case mints its own ids), and although each persistent demo's sweep walks every
 * master and so reads the other demos' paused-run markers too, it only acts on a run that is not simply
 * waiting in time. Of what it may then do, rolling a claimed answer forward is the same step the claimer
 * takes, logged as recovered on the sweeper (the two-instance case's path); continuing a stalled run or
 * expiring an overdue card would call the sweeper's model, but no run here stalls (row 7 kills its server
 * while the run waits on an unanswered card, before any claim) and no card nears the default 30 minutes.
 * The in-process case keeps its run state in memory, so its sweep lists nothing of the cluster's.
 */
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { acceptanceOnStore } from './stores/on-store.js';

/** The cluster, named to the demo by all six nodes as a host would name it. */
async function startCluster() {
  const cluster = await startRedisCluster();
  return { url: cluster.url, stop: () => cluster.stop() };
}

await acceptanceOnStore({ kind: 'redis-cluster', label: 'Redis Cluster', start: startCluster });
