import type { DebianPackage } from './debian.js';
import { NGINX } from './nginx.js';
import { DEBIAN_POSTGRES } from './postgres.js';
import { REDIS_SERVER } from './redis.js';

/** The Debian packages of the servers this package starts, each with the binary that shows it is installed. */
export const SERVER_PACKAGES: readonly DebianPackage[] = [
  ['postgresql', DEBIAN_POSTGRES],
  ['redis-server', REDIS_SERVER],
  ['nginx-light', NGINX],
];

/**
 * Debian's Java runtime (17 on Debian 12), for the tools of the toolchain matrix that ship as a jar (Specmatic needs
 * Java 17 or later); `java` on the PATH comes from it.
 */
export const JAVA_RUNTIME: DebianPackage = ['default-jre-headless', '/usr/bin/java'];
