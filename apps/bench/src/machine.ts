import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  freeMemoryGiB: number;
  node: string;
  os: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine shows up here. */
  loadAverage: [number, number, number];
  /** ISO time at which the run started. */
  startedAt: string;
}

const GiB = 1024 ** 3;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** 1, 5 and 15 minute load averages now. */
export function loadAverage(): [number, number, number] {
  const [l1, l5, l15] = loadavg() as [number, number, number];
  return [round1(l1), round1(l5), round1(l15)];
}

/** The machine's CPU time so far, in clock ticks: all of it, and the part the host gave to other guests (steal). */
export interface CpuTicks {
  total: number;
  steal: number;
}

/** The `cpu` line of /proc/stat; guest time is left out, since the kernel already counts it in user and nice. */
export function parseCpuTicks(procStat: string): CpuTicks | undefined {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return Number.isFinite(total) ? { total, steal } : undefined;
}

export function cpuTicks(): CpuTicks | undefined {
  try {
    return parseCpuTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The share of the machine's CPU time between two readings that the host took for other guests: on a virtual
 * machine, work outside it that slowed every figure of the run, whatever the load average says.
 */
export function stolenShare(start: CpuTicks | undefined, end: CpuTicks | undefined): number | undefined {
  if (!start || !end) return undefined;
  const total = end.total - start.total;
  return total > 0 ? (end.steal - start.steal) / total : undefined;
}

export function machineInfo(startedAt: Date): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGiB: round1(totalmem() / GiB),
    freeMemoryGiB: round1(freemem() / GiB),
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverage: loadAverage(),
    startedAt: startedAt.toISOString(),
  };
}

/** The commit a directory's repository has checked out, and whether its working tree differs from it. */
export function gitState(dir: string): { commit: string; dirty: boolean } | undefined {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const status = execFileSync('git', ['status', '--porcelain'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return { commit, dirty: status.trim() !== '' };
  } catch {
    return undefined;
  }
}
