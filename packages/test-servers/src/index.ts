export {
  CommandFailed,
  type DebianPackage,
  ensureDebianPackage,
  ensureDebianPackages,
  type InstallOptions,
  type Log,
  run,
} from './debian.js';
export { HeldClock, type HeldClockServer } from './held-clock.js';
export { JAVA_RUNTIME, SERVER_PACKAGES } from './packages.js';
export { assertPortFree, type PortHolder, portHolders, sparePort } from './ports.js';
export {
  type OwnGroup,
  processesIn,
  processTree,
  runCommand,
  runningInGroup,
  startServer,
  stopProcessesIn,
  type RunningServer,
} from './process.js';
export { REDIS_SERVER, type RedisOptions, startRedis, type RunningRedis } from './redis.js';
export { NGINX, nginxConfig, startNginx, type NginxOptions, type RunningNginx } from './nginx.js';
export { ensurePostgres, POSTGRES_PASSWORD, startPostgres, type RunningPostgres } from './postgres.js';
export {
  type DemoAccount,
  type KeyArea,
  keyOf,
  type ReferenceOptions,
  type ReferenceServer,
  startReference,
} from './reference.js';
export {
  ensureNpmRuntime,
  npmSpec,
  RUNTIME_CACHE,
  type RuntimeRow,
  runtimeBin,
  runtimeTable,
} from './runtimes.js';
