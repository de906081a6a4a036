/** Two demo instances on one Redis (a redis-server of the case's own): the question streams from instance A, the answer is continued by instance B. */
import { startRedisServer } from '../../helpers/redis-server.js';
import { twoInstances } from './two-instances.js';

twoInstances({ name: 'two-instances-redis', label: 'Redis', store: () => startRedisServer() });
