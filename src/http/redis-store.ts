import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { CircuitBreaker } from './circuit-breaker.js';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

interface Store {
  incr(key: string, cb: Callback, timeWindow: number, max: number): void;
  read(key: string, cb: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}

type RedisStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => Store;

// The plugin's own Redis store (its Lua script), reached by path: the package exports no types for it.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreCtor;

/** The plugin's Redis store behind a circuit breaker: a hung Redis costs nothing once detected. */
class GuardedStore implements Store {
  constructor(
    private readonly inner: Store,
    private readonly breaker: CircuitBreaker,
  ) {}
  incr(key: string, cb: Callback, timeWindow: number, max: number): void {
    this.breaker.run((done) => this.inner.incr(key, done, timeWindow, max), cb);
  }
  read(key: string, cb: Callback, timeWindow: number, max: number): void {
    this.breaker.run((done) => this.inner.read(key, done, timeWindow, max), cb);
  }
  child(routeOptions: unknown): Store {
    return new GuardedStore(this.inner.child(routeOptions), this.breaker);
  }
}

/** A store class for @fastify/rate-limit's `store` option. */
export function guardedRedisStore(redis: Redis, nameSpace: string, breaker: CircuitBreaker) {
  return class extends GuardedStore {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      super(
        new RedisStore(params.continueExceeding ?? false, params.exponentialBackoff ?? false, redis, nameSpace),
        breaker,
      );
    }
  };
}
