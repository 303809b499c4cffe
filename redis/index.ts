// payconform/redis: Redis-backed parts for deployments of more than one instance. Imported only by those who use
// Redis, so the `redis` client stays an optional peer dependency of the core package.
export {
  NonceStoreResetError,
  RedisNonceStore,
  type RedisNonceStoreOptions,
} from './nonce-store.js';
export {
  clusterCommander,
  connectRedis,
  type ConnectRedisOptions,
  type RedisClusterLike,
  type RedisCommander,
  type RedisConnection,
} from './commander.js';
