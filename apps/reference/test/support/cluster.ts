// `cls-reference cluster --json` started in the test's process, as the cluster tests start it: its topology (what
// it prints on stdout), the running cluster, what stops it, and the servers it started itself.
import { type ClusterServers, runCli } from '../../src/cli.js';
import type { Cluster } from '../../src/cluster.js';
import type { Clock } from '../../src/server.js';

export interface ClusterTopology {
  base_url: string;
  instances: string[];
  admin: string;
  env_file: string;
  accounts: Array<{ account_id: string; api_keys: Array<{ area: string; env: string; api_key: string }> }>;
}

export interface StartedCluster {
  topology: ClusterTopology;
  cluster: Cluster;
  /** Stops the cluster and the servers it started. */
  stop: () => Promise<void>;
  own: ClusterServers;
  /** Everything the command wrote to stderr (with --json, its progress and the supervision's reports), growing. */
  reported: string[];
}

/**
 * Starts `instances` instances with `env` as the command's environment, and `clock` as its time (the system's when
 * absent); fails with its stderr if it fails.
 */
export async function startCluster(instances: number, env: NodeJS.ProcessEnv, clock?: Clock): Promise<StartedCluster> {
  const out: string[] = [];
  const reported: string[] = [];
  let running: Omit<StartedCluster, 'topology' | 'reported'> | undefined;
  const code = await runCli(['cluster', '--instances', String(instances), '--json'], {
    env,
    stdout: (t) => out.push(t),
    stderr: (t) => reported.push(t),
    handleSignals: false,
    clock,
    onCluster: (cluster, stop, own) => {
      running = { cluster, stop, own };
    },
  });
  if (code !== 0 || !running) {
    await running?.stop();
    throw new Error(`cls-reference cluster exited with ${code}:\n${reported.join('\n')}`);
  }
  return { ...running, topology: JSON.parse(out.join('')) as ClusterTopology, reported };
}

/** The test-environment API key of `area` of the topology's account number `account`. */
export function testKey(topology: ClusterTopology, area: string, account = 0): string {
  return topology.accounts[account]!.api_keys.find((k) => k.area === area && k.env === 'test')!.api_key;
}
